#!/usr/bin/env node
/**
 * The `app` command-line tool: operators manage the database, endpoints and deliveries. The run
 * itself is app.ts, over this process's streams and environment. The `app` command starts at
 * bin.js, which turns on Node's compile cache before this file is read; `node cli/main.ts`
 * (the release step) starts here and turns it on itself, for every module after this one.
 */
import { enableCompileCache } from 'node:module';

enableCompileCache?.();

// A reader that stops early (`app openapi | head`) closes the pipe: the run ends quietly, as other
// command-line tools do, rather than with an unhandled EPIPE and its stack trace.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
  process.exit(process.exitCode ?? 0);
});

const { runApp } = await import('./app.ts');
const { processIo } = await import('./io.ts');

process.exitCode = await runApp(process.argv.slice(2), processIo());
