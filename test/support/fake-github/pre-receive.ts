/**
 * The pre-receive hook every fake repository gets, for two GitHub rules that `git push` meets
 * on the server side: the default branch cannot be deleted, and a GitHub App token without
 * the `workflows` permission cannot make a ref differ under `.github/workflows/` from what was
 * there (git-http.ts sets FAKE_GITHUB_WORKFLOWS for each push). The comparison is the one of
 * workflow-rule.ts: the old commit for an update; for a new ref the default branch's head, or
 * nothing (the empty tree) when the pushed commit shares no history with it.
 */
import { WORKFLOWS_DIR } from "./workflow-rule.ts";

/**
 * The post-receive hook: the refs a push moved ("old new ref" per line), appended to the file
 * git-http.ts names for that push, so the fake records the push's events (events.ts).
 */
export const POST_RECEIVE_HOOK = `#!/bin/sh
[ -n "$FAKE_GITHUB_PUSH_LOG" ] && cat >> "$FAKE_GITHUB_PUSH_LOG"
exit 0
`;

export const PRE_RECEIVE_HOOK = `#!/bin/sh
zero=0000000000000000000000000000000000000000
empty=4b825dc642cb6eb9a060e54bf8d69288fbee4904
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
  base=$old
  if [ "$old" = "$zero" ]; then
    base=$(git rev-parse -q --verify "$current^{commit}")
    if [ -z "$base" ] || ! git merge-base "$base" "$new" >/dev/null 2>&1; then base=$empty; fi
  fi
  file=$(git diff-tree -r --no-commit-id --name-only "$base" "$new" -- ${WORKFLOWS_DIR}/ | head -n 1)
  if [ -n "$file" ]; then
    echo "refusing to allow a GitHub App to create or update workflow \\\`$file\\\` without \\\`workflows\\\` permission" >&2
    status=1
  fi
done
exit $status
`;
