/**
 * The GitHub port with every text naruto writes for people redacted: comments (tracking,
 * verdict, replies), issues, pull request titles and bodies, check run output. Code and the
 * mission document go through other doors (git pushes; the store, see store.ts), never this one.
 */
import type { CheckOutput, GitHubPort } from "../github/index.ts";
import type { Redactor } from "./redactor.ts";

export function redactingGitHub(github: GitHubPort, redactor: Redactor): GitHubPort {
  const text = (value: string) => redactor.redact(value);
  const output = (o: CheckOutput): CheckOutput => ({ title: text(o.title), summary: text(o.summary), ...(o.text === undefined ? {} : { text: text(o.text) }) });
  return {
    ...github,
    upsertComment: (p) => github.upsertComment({ ...p, body: text(p.body) }),
    openIssue: (p) => github.openIssue({ ...p, title: text(p.title), body: text(p.body) }),
    createPullRequest: (p) => github.createPullRequest({ ...p, title: text(p.title), body: text(p.body) }),
    updatePullRequest: (p) =>
      github.updatePullRequest({ ...p, ...(p.title === undefined ? {} : { title: text(p.title) }), ...(p.body === undefined ? {} : { body: text(p.body) }) }),
    createCheckRun: (p) => github.createCheckRun({ ...p, ...(p.output === undefined ? {} : { output: output(p.output) }) }),
    updateCheckRun: (p) => github.updateCheckRun({ ...p, ...(p.output === undefined ? {} : { output: output(p.output) }) }),
  };
}
