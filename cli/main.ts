#!/usr/bin/env node
/**
 * The `app` command-line tool: operators manage the database, endpoints and deliveries. The run
 * itself is app.ts, over this process's streams and environment. The `app` command starts at
 * bin.js, which turns on Node's compile cache before this file is read; `node cli/main.ts`
 * (the release step) starts here and turns it on itself, for every module after this one.
 */
import { enableCompileCache } from 'node:module';

enableCompileCache?.();

const { runApp } = await import('./app.ts');
const { processIo } = await import('./io.ts');
const { endQuietlyOnClosedPipes, stopOnSignals } = await import('./process-ends.ts');

// a closed pipe and a signal end the run as a script expects (process-ends.ts)
const io = processIo();
const argv = process.argv.slice(2);
endQuietlyOnClosedPipes(io);
const stop = stopOnSignals(io, argv);
stop.end(await runApp(argv, io));
