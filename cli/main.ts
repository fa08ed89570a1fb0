#!/usr/bin/env node
/**
 * The `app` command-line tool (package.json `bin`): operators manage the database, endpoints
 * and deliveries. The run itself is app.ts, over this process's streams and environment.
 *
 * Node's compile cache is turned on before anything else loads, so a command's modules are
 * parsed (and type-stripped) once per version rather than at every run.
 */
import { enableCompileCache } from 'node:module';

enableCompileCache?.();

const { runApp } = await import('./app.ts');
const { processIo } = await import('./io.ts');

process.exitCode = await runApp(process.argv.slice(2), processIo());
