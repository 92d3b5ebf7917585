#!/usr/bin/env node
// Edits inside its write paths and also writes NARUTO_FAKE_OUTSIDE (default
// `outside-<item>.txt` at the repository root), which is outside them.
import { editAndReport, item, applyEdits } from "./fake-lib.mjs";

editAndReport("out-of-scope");
applyEdits({ [process.env.NARUTO_FAKE_OUTSIDE ?? `outside-${item}.txt`]: "written where it must not be\n" });
