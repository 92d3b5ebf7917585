/** Public face of `src/doctor/`: `naruto doctor`, a repository's setup checked against GitHub. */
export { appJwt, createDoctorGitHub, type AppCredentials, type DoctorGitHub, type Installation, type Read } from "./doctor-github.ts";
export { diagnose, type DoctorFacts } from "./diagnose.ts";
export type { Finding, Severity } from "./finding.ts";
export { appManifest, formatFindings, runDoctor } from "./run-doctor.ts";
export { workflowDiagnostics } from "./workflow-check.ts";
export { workflowFacts, type WorkflowFacts } from "./workflow-facts.ts";
