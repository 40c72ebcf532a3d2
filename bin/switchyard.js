#!/usr/bin/env node
// The published entry point: runs the TypeScript CLI through tsx's loader so
// `switchyard` works from a checkout without a build step.
import { register } from "tsx/esm/api";

register();
await import("../src/cli.ts");
