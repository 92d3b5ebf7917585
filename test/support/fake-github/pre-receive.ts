/**
 * The pre-receive hook every fake repository gets, for two GitHub rules that `git push` meets
 * on the server side: the default branch cannot be deleted, and a GitHub App token without
 * the `workflows` permission cannot push commits that change `.github/workflows/`
 * (git-http.ts sets FAKE_GITHUB_WORKFLOWS for each push).
 */
export const PRE_RECEIVE_HOOK = `#!/bin/sh
zero=0000000000000000000000000000000000000000
current=$(git symbolic-ref -q HEAD)
status=0
while read old new ref; do
  if [ "$new" = "$zero" ]; then
    if [ "$ref" = "$current" ]; then
      echo "refusing to delete the current branch: $ref" >&2
      status=1
    fi
    continue
  fi
  [ "$FAKE_GITHUB_WORKFLOWS" = "deny" ] || continue
  for commit in $(git rev-list "$new" --not --all); do
    file=$(git diff-tree --no-commit-id --name-only -r --root "$commit" -- .github/workflows/ | head -n 1)
    if [ -n "$file" ]; then
      echo "refusing to allow a GitHub App to create or update workflow \\\`$file\\\` without \\\`workflows\\\` permission" >&2
      status=1
      break
    fi
  done
done
exit $status
`;
