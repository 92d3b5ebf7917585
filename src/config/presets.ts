/**
 * Agent presets: plain config built from the command lines checked in AGENTS.md (claude 2.1.332,
 * codex-cli 0.171.0, gemini 0.61.0; aider from its docs). Each one reads the prompt from
 * `$NARUTO_PROMPT_FILE` on stdin (no argument-length cap, and stdin gets an EOF), keeps raw output
 * in `mktemp` files outside the work tree, turns the agent's own output into the
 * `$NARUTO_RESULT_FILE` summary, and exits with the agent's exit code.
 *
 * Each preset's `env` is the allowlist of that agent's authentication, gateway and proxy
 * variables: nothing else of the runner's environment reaches the agent (see env-policy.ts).
 */

export const PRESET_NAMES = ["claude", "codex", "aider", "gemini"] as const;
export type PresetName = (typeof PRESET_NAMES)[number];

export interface Preset {
  readonly command: string;
  readonly env: readonly string[];
  readonly description: string;
  /**
   * The programs the command runs: found on PATH where naruto runs and shown read-only in the
   * sandbox, with the folder each is installed in (an npm package, a native install).
   */
  readonly executables: readonly string[];
  /** How a user installs the CLI (said when it is not found). */
  readonly install: string;
}

// String.raw: the commands hold shell line continuations and `\n` escapes meant for node -e.
// A parser that finds no JSON (the CLI is missing, or crashed) writes no result and shows what
// the CLI printed instead, never a Node stack: the attempt's reason is the CLI's own exit code
// and words.

// Claude Code reports refused tool calls (an edit under a .git/ folder or outside the work
// directory) only in its JSON, and exits 0; an error (`is_error`: a turn limit, an API error) is
// in the JSON too, not in the exit code's meaning. The preset fails such an attempt with the
// reason on stderr, which becomes the attempt's reason, instead of an unexplained "no changes".
// A refused `git commit`/`git push` is the preset's own rule (naruto commits the work): it fails
// nothing. Refused credentials (no login: "Not logged in"; a bad or expired key: status 401) are
// said in the result file (`failure`): naruto then fails the item at once, with what to do,
// instead of running it again to the same end. Codex says it in a `turn.failed` event ("unexpected
// status 401 Unauthorized"), Gemini CLI with its error code (41: no auth method; 401, 403).
const CLAUDE = String.raw`out=$(mktemp)
claude -p --output-format json --permission-mode acceptEdits \
  --allowedTools "Bash" --disallowedTools "Bash(git commit:*),Bash(git push:*)" \
  --max-turns 80 --model sonnet < "$NARUTO_PROMPT_FILE" > "$out"; rc=$?
node -e 'const fs=require("fs"),o=fs.readFileSync(process.argv[1],"utf8");let r;try{r=JSON.parse(o)}catch{if(o.trim())console.error("naruto: Claude Code printed no JSON result: "+o.trim().slice(0,500));process.exit(0)}const u=r.usage||{},auth=r.is_error&&(r.api_error_status===401||r.api_error_status===403||r.api_error_type==="authentication_error"||/^(Not logged in|Invalid API key|OAuth token)/.test(String(r.result)));fs.writeFileSync(process.argv[2],JSON.stringify({summary:String(r.result??"").slice(0,2000),cost_usd:r.total_cost_usd,tokens_in:(u.input_tokens||0)+(u.cache_read_input_tokens||0)+(u.cache_creation_input_tokens||0),tokens_out:u.output_tokens,model:Object.keys(r.modelUsage||{})[0],failure:auth?{kind:"authentication",message:String(r.result??"").slice(0,500)}:undefined}));const why=[],i=d=>d.tool_input||{},d=(r.permission_denials||[]).filter(d=>!(d.tool_name==="Bash"&&/\bgit\s+(commit|push)\b/.test(String(i(d).command))));if(r.is_error)why.push("Claude Code ended with an error ("+r.subtype+"): "+String([].concat(r.errors||[]).join("; ")||r.result||"no message").slice(0,500));if(d.length)why.push("Claude Code refused "+d.length+" tool call(s): "+d.map(d=>d.tool_name+" "+String(i(d).file_path??i(d).command??JSON.stringify(i(d))).slice(0,200)).join("; "));if(why.length){console.error("naruto: "+why.join(". ")+": failing the attempt");process.exit(9)}' "$out" "$NARUTO_RESULT_FILE"
if [ $? -eq 9 ] && [ "$rc" -eq 0 ]; then rc=1; fi
exit $rc
`;

// Codex CLI must write its home (`installation_id`, SQLite state, `tmp/arg0`, `skills`,
// `shell_snapshots`) or it exits 1. A user's CODEX_HOME (shown with `read: [~/.codex]`) is
// read-only in the sandbox: the preset copies its config.toml into a Codex home in the private
// HOME and runs Codex there. Not auth.json: its login comes from naruto, only with `login: true`,
// without the refresh token Codex would rotate (src/agent/cli-login.ts, docs/agents.md).
//
// Codex exits 0 when its writes fail (its own sandbox refused them, or a patch did not apply):
// each comes in its JSON as a `file_change` item with `status: "failed"`. The preset fails such an
// attempt, naming the files, when no write of Codex's succeeded (a failed patch made again another
// way passes). Output that is empty or not JSON (Codex missing, or crashed) is skipped quietly:
// the reason is then Codex's own exit code and output.
const CODEX = String.raw`if [ -n "$CODEX_HOME" ] && [ ! -w "$CODEX_HOME" ]; then
  mkdir -p "$HOME/.codex" && if [ -f "$CODEX_HOME/config.toml" ]; then cp "$CODEX_HOME/config.toml" "$HOME/.codex/"; fi
  export CODEX_HOME="$HOME/.codex"
fi
ev=$(mktemp); last=$(mktemp)
codex exec --sandbox workspace-write --json --ephemeral -o "$last" - < "$NARUTO_PROMPT_FILE" > "$ev"; rc=$?
node -e 'try{const fs=require("fs"),p=require("path"),n=v=>Number(v)||0;let i=0,o=0,ok=0,failed=0,auth;const bad=new Set();for(const l of fs.readFileSync(process.argv[1],"utf8").split("\n")){let e;try{e=JSON.parse(l)}catch{continue}if(e?.type==="turn.completed"&&e.usage){i+=n(e.usage.input_tokens);o+=n(e.usage.output_tokens)}const m=String(e?.type==="turn.failed"?e.error?.message:e?.type==="error"?e.message:"");if(/\b(401 Unauthorized|403 Forbidden)\b|access token could not be refreshed|Not logged in/.test(m))auth=m.slice(0,500);if(e?.type==="item.completed"&&e.item?.type==="file_change"){if(e.item.status==="completed")ok++;else{failed++;for(const c of [].concat(e.item.changes??[]))bad.add(p.relative(process.cwd(),String(c?.path)))}}}fs.writeFileSync(process.argv[3],JSON.stringify({summary:fs.readFileSync(process.argv[2],"utf8").slice(0,2000),tokens_in:i,tokens_out:o,failure:auth?{kind:"authentication",message:auth}:undefined}));if(failed&&!ok){const b=[...bad];console.error("naruto: Codex could not write "+(b.length?b.slice(0,10).join(", ")+(b.length>10?" and "+(b.length-10)+" more":""):failed+" change(s)")+" (its sandbox refused it, or the patch did not apply), and wrote nothing else: failing the attempt");process.exit(9)}}catch(x){console.error("naruto: could not read the output of Codex: "+x.message)}' "$ev" "$last" "$NARUTO_RESULT_FILE"
if [ $? -eq 9 ] && [ "$rc" -eq 0 ]; then rc=1; fi
exit $rc
`;

const AIDER = String.raw`log=$(mktemp)
aider --message-file "$NARUTO_PROMPT_FILE" --yes-always --no-auto-commits --no-dirty-commits \
  --no-gitignore --no-analytics --analytics-log "$log" --no-check-update --no-show-release-notes \
  --no-stream --no-pretty --chat-history-file /dev/null --input-history-file /dev/null --model sonnet; rc=$?
node -e 'const fs=require("fs");let i=0,o=0,c,m,n=0;for(const l of fs.readFileSync(process.argv[1],"utf8").split("\n")){try{const e=JSON.parse(l);if(e.event==="message_send"){const p=e.properties;n++;i+=p.prompt_tokens||0;o+=p.completion_tokens||0;c=p.total_cost;m=p.main_model}}catch{}}fs.writeFileSync(process.argv[2],JSON.stringify({summary:n?"aider run":"aider made no model call",cost_usd:c,tokens_in:i,tokens_out:o,model:m}));if(!n)process.exit(9)' "$log" "$NARUTO_RESULT_FILE"
if [ $? -eq 9 ] && [ "$rc" -eq 0 ]; then echo "naruto: aider made no model call (no message_send event): failing the attempt" >&2; rc=1; fi
exit $rc
`;

const GEMINI = String.raw`if [ -n "$GEMINI_CLI_HOME" ] && [ ! -w "$GEMINI_CLI_HOME/.gemini" ]; then
  mkdir -p "$HOME/.gemini" && if [ -f "$GEMINI_CLI_HOME/.gemini/settings.json" ]; then cp "$GEMINI_CLI_HOME/.gemini/settings.json" "$HOME/.gemini/"; fi
  export GEMINI_CLI_HOME="$HOME"
fi
out=$(mktemp); err=$(mktemp); status=$(mktemp)
{ GEMINI_CLI_TRUST_WORKSPACE=true gemini --approval-mode=yolo --output-format json \
  -p "Carry out the task given on standard input." < "$NARUTO_PROMPT_FILE" 2>&1 > "$out"; echo $? > "$status"; } | tee "$err" >&2
rc=$(cat "$status"); [ -n "$rc" ] || rc=1
node -e 'const fs=require("fs"),o=fs.readFileSync(process.argv[1],"utf8"),t=fs.readFileSync(process.argv[3],"utf8");let r;try{r=JSON.parse(o.trim()?o:t.slice(t.lastIndexOf("\n{")+1))}catch{if(o.trim())console.error("naruto: Gemini CLI printed no JSON result: "+o.trim().slice(0,500));process.exit(0)}const m=Object.entries(r.stats?.models||{}),u=([,v])=>Object.keys(v.roles||{}).length>0&&Object.keys(v.roles).every(k=>k.startsWith("utility_")),main=m.find(([,v])=>v.roles?.main)??m.filter(e=>!u(e)).reduce((a,e)=>a&&(a[1].tokens?.total||0)>=(e[1].tokens?.total||0)?a:e,undefined);fs.writeFileSync(process.argv[2],JSON.stringify({summary:String(r.response??r.error?.message??"").slice(0,2000),tokens_in:m.reduce((s,[,v])=>s+(v.tokens?.prompt||0),0),tokens_out:m.reduce((s,[,v])=>s+(v.tokens?.candidates||0)+(v.tokens?.thoughts||0),0),model:main?.[0],failure:[41,401,403].includes(r.error?.code)?{kind:"authentication",message:String(r.error.message??"").slice(0,500)}:undefined}))' "$out" "$NARUTO_RESULT_FILE" "$err" || true
exit $rc
`;

// Gemini CLI downgrades yolo in a folder it does not trust, so the preset trusts the work
// directory: naruto chose it, and its start-up config (`.gemini/`, `.env`) is the base's — those
// paths are protected, and restored from the base wherever the tree holds untrusted content
// (src/engine/startup-config.ts).
//
// Gemini CLI 0.61.0 reads its settings (the auth type, which a gateway's GOOGLE_GEMINI_BASE_URL
// needs) from its home, `$GEMINI_CLI_HOME/.gemini/` (else HOME's, which naruto makes private), and
// exits 1 when it cannot write its project registry and chats beside them. A user's home (passed
// with `read: [~/.gemini]`) is read-only in the sandbox: the preset copies its settings.json into
// the private HOME and runs Gemini there. Not oauth_creds.json: its login comes from naruto, only
// with `login: true` (src/agent/cli-login.ts, docs/agents.md).
//
// Gemini CLI 0.61.0 prints its JSON on standard output when it runs, but on standard error when
// it fails, after its warnings: the preset shows standard error as it comes and keeps a copy
// (tee), whose last JSON object gives a failure's message. `stats.models` lists the router
// (role `utility_router`) first: the model recorded is the one with role `main` (without roles,
// the one that used the most tokens), and tokens add up over all of them.

// aider exits 0 even on fatal API errors (Aider-AI/aider#5552, AGENTS.md): its preset fails the
// attempt when the analytics log shows no model call at all.

// AWS and Google credential variables are listed for the Bedrock and Vertex routes.
const AWS = ["AWS_REGION", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE"];
const GOOGLE_ADC = ["GOOGLE_APPLICATION_CREDENTIALS", "GOOGLE_CLOUD_PROJECT", "GOOGLE_CLOUD_LOCATION"];
// A proxy between this machine and the model, as every CLI reads it (both spellings: Node.js
// tools read the upper case, Rust's reqwest and Python's both), and a proxy's certificate
// authority: Node.js's NODE_EXTRA_CA_CERTS (Claude Code, Gemini CLI), Codex's own and
// SSL_CERT_FILE, Python's REQUESTS_CA_BUNDLE (aider).
const PROXY = ["HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "NO_PROXY", "no_proxy", "ALL_PROXY", "all_proxy"];

export const PRESETS: Readonly<Record<PresetName, Preset>> = {
  claude: {
    command: CLAUDE,
    env: [
      "ANTHROPIC_API_KEY",
      "CLAUDE_CODE_OAUTH_TOKEN",
      // A gateway: its address, the bearer token it takes instead of a key, headers it wants.
      "ANTHROPIC_BASE_URL",
      "ANTHROPIC_AUTH_TOKEN",
      "ANTHROPIC_CUSTOM_HEADERS",
      "CLAUDE_CODE_USE_BEDROCK",
      "ANTHROPIC_BEDROCK_BASE_URL",
      ...AWS,
      "CLAUDE_CODE_USE_VERTEX",
      "ANTHROPIC_VERTEX_PROJECT_ID",
      "ANTHROPIC_VERTEX_BASE_URL",
      "CLOUD_ML_REGION",
      "GOOGLE_APPLICATION_CREDENTIALS",
      "CLAUDE_CODE_USE_FOUNDRY",
      "ANTHROPIC_FOUNDRY_BASE_URL",
      ...PROXY,
      "NODE_EXTRA_CA_CERTS",
    ],
    description: "Claude Code (claude -p), edits accepted, git commit/push denied",
    executables: ["claude", "node"],
    install: "npm install -g @anthropic-ai/claude-code",
  },
  codex: {
    command: CODEX,
    // CODEX_HOME: a user's Codex config (with `read: [~/.codex]`); see the command's comment.
    // Codex takes a gateway as a model provider of its config.toml (CODEX_HOME), not a variable.
    env: ["CODEX_API_KEY", "OPENAI_API_KEY", "CODEX_HOME", ...PROXY, "CODEX_CA_CERTIFICATE", "SSL_CERT_FILE"],
    description: "OpenAI Codex CLI (codex exec), workspace-write sandbox",
    executables: ["codex", "node"],
    install: "npm install -g @openai/codex",
  },
  aider: {
    command: AIDER,
    env: [
      "ANTHROPIC_API_KEY",
      "OPENAI_API_KEY",
      "GEMINI_API_KEY",
      "DEEPSEEK_API_KEY",
      "OPENROUTER_API_KEY",
      "AIDER_MODEL",
      "OPENAI_API_BASE",
      ...PROXY,
      "REQUESTS_CA_BUNDLE",
      "SSL_CERT_FILE",
    ],
    description: "aider (--message-file), no auto-commits",
    executables: ["aider", "node"],
    install: "python -m pip install aider-install && aider-install",
  },
  gemini: {
    command: GEMINI,
    // GEMINI_CLI_HOME: a user's Gemini settings (with `read: [~/.gemini]`); see the command's comment.
    env: [
      "GEMINI_API_KEY",
      "GOOGLE_GENAI_USE_VERTEXAI",
      "GOOGLE_API_KEY",
      ...GOOGLE_ADC,
      // Code Assist with an access token of one's own (no refresh token anywhere).
      "GOOGLE_GENAI_USE_GCA",
      "GOOGLE_CLOUD_ACCESS_TOKEN",
      "GEMINI_CLI_HOME",
      "GOOGLE_GEMINI_BASE_URL",
      "GOOGLE_VERTEX_BASE_URL",
      ...PROXY,
      "NODE_EXTRA_CA_CERTS",
    ],
    description: "Gemini CLI (gemini -p), yolo approval in a trusted workspace",
    executables: ["gemini", "node"],
    install: "npm install -g @google/gemini-cli",
  },
};

export function isPresetName(name: string): name is PresetName {
  return (PRESET_NAMES as readonly string[]).includes(name);
}
