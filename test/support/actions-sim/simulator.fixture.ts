/** The workflow and JavaScript action the simulator's own tests run. */

export const FIXTURE_WORKFLOW = `name: sim-test
run-name: sim \${{ inputs.fail == 'yes' && 'failing' || format('legs {0}', inputs.items) }} by \${{ github.actor }}
on:
  workflow_dispatch:
    inputs:
      items: { type: string, default: "[]" }
      fail: { type: string, default: "no" }
permissions: {}
jobs:
  prepare:
    runs-on: ubuntu-latest
    permissions: { contents: read }
    outputs:
      greeting: \${{ steps.say.outputs.greeting }}
    steps:
      - uses: actions/checkout@v5
        with: { persist-credentials: false }
      - id: say
        run: |
          test -f README.md
          { echo "greeting<<EOF"; echo hello; echo world; echo EOF; } >> "$GITHUB_OUTPUT"
          echo "FROM_ENV=carried" >> "$GITHUB_ENV"
      - id: check
        run: |
          test "$FROM_ENV" = carried
          if git config --list | grep -i -e extraheader -e x-access-token; then exit 1; fi
          if [ "\${{ vars.ISOLATED }}" = yes ]; then
            test "$(id -u)" != 0
            test ! -e "\${{ vars.FAKE_REPO_DIR }}"
          fi
      # The same check finds the credential that persist-credentials (default true) leaves.
      - uses: actions/checkout@v5
        with: { path: persisted }
      - run: git -C persisted config --list | grep -q -i extraheader
  legs:
    needs: prepare
    if: inputs.items != '[]'
    runs-on: ubuntu-latest
    permissions: { contents: read, issues: read }
    strategy:
      max-parallel: 2
      matrix:
        include: \${{ fromJSON(inputs.items) }}
    steps:
      - id: act
        uses: acme/fixture-action@v1
        with:
          who: \${{ matrix.item }}#\${{ matrix.attempt }}
          greeting: \${{ needs.prepare.outputs.greeting }}
      # A run: step has no token of its own (neither the job's nor the Actions runtime's),
      # gets its env: with step outputs, and gets the job's token only when it is passed.
      - id: plain
        env:
          SEEN: \${{ steps.act.outputs.seen }}
          PASSED: \${{ github.token }}
        run: |
          env | grep -e '^ACTIONS_' -e '^GITHUB_TOKEN=' -e '^INPUT_' && exit 1
          test -n "$PASSED"
          { echo "seen<<EOF"; echo "$SEEN"; echo EOF; } >> "$GITHUB_OUTPUT"
      - run: |
          mkdir out
          echo "\${{ steps.act.outputs.seen }}" > out/seen.txt
          echo secret > out/.hidden
      - uses: actions/upload-artifact@v6
        with:
          name: leg-\${{ matrix.item }}
          path: out
      - run: (sleep 60 &) ; echo left a process running
  gather:
    needs: legs
    runs-on: ubuntu-latest
    permissions: { contents: read, issues: write }
    steps:
      - uses: actions/download-artifact@v7
        with: { path: all }
      - run: find all -type f | sort | xargs grep -H .
      - id: act
        uses: ./
        with: { who: gather }
  failing:
    if: inputs.fail == 'yes'
    runs-on: ubuntu-latest
    steps:
      - run: exit 3
  after-failure:
    needs: failing
    runs-on: ubuntu-latest
    steps:
      - run: echo never
  cleanup:
    needs: failing
    if: always()
    runs-on: ubuntu-latest
    steps:
      - run: echo "failing was \${{ needs.failing.result }}"
  guarded:
    if: vars.SKIP_GUARDED != 'true'
    runs-on: ubuntu-latest
    steps:
      - run: echo guarded ran
`;

export const FIXTURE_ACTION = {
  yml: `name: fixture
description: The simulator's own test action
inputs:
  who: { required: true }
  greeting: { default: "" }
  github-token: { default: "\${{ github.token }}" }
runs:
  using: node20
  main: index.mjs
`,
  main: `import { appendFileSync } from "node:fs";
const env = process.env;
const out = (name, value) => appendFileSync(env.GITHUB_OUTPUT, name + "<<X\\n" + value + "\\nX\\n");
out("seen", env["INPUT_WHO"] + " says " + env["INPUT_GREETING"]);
out("runtime", /^eyJ[\\w-]+\\.[\\w-]+\\.[\\w-]+$/.test(env.ACTIONS_RUNTIME_TOKEN ?? "") ? "a JWT" : "none");
console.log("runtime=" + env.ACTIONS_RUNTIME_TOKEN);
const token = env["INPUT_GITHUB-TOKEN"];
console.log("token=" + token);
const [owner, repo] = env.GITHUB_REPOSITORY.split("/");
const response = await fetch(env.GITHUB_API_URL + "/repos/" + owner + "/" + repo + "/issues/1/comments", {
  method: "POST",
  headers: { authorization: "token " + token, "content-type": "application/json" },
  body: JSON.stringify({ body: "hello from " + env["INPUT_WHO"] }),
});
out("comment-status", String(response.status));
`,
};
