#!/usr/bin/env node
// Makes scripted edits (see editSpec in fake-lib.mjs), reports them, exits 0.
import { editAndReport } from "./fake-lib.mjs";

editAndReport("edit");
