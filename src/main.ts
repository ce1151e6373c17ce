#!/usr/bin/env node
import { parseFlags, usage } from './server/config';
import { tuneScavengerThreads } from './server/gc-threads';
import { createLogger } from './server/logger';
import { startServer } from './server/start-server';

async function main(): Promise<void> {
  tuneScavengerThreads();
  let config;
  try {
    config = parseFlags(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`kapi: ${(err as Error).message}\n${usage()}`);
    process.exit(2);
  }
  if (config === 'help') {
    process.stdout.write(usage());
    return;
  }
  const log = createLogger({ verbosity: config.verbosity, format: config.loggingFormat });
  // A promise nobody awaited must not take the server down with it: log it, as Go's HandleCrash logs.
  process.on('unhandledRejection', (err) => log('unhandled rejection', err));
  let server;
  try {
    server = await startServer(config, log);
  } catch (err) {
    process.stderr.write(`kapi: ${(err as Error).message}\n`);
    process.exit(1);
  }
  /** Graceful: /readyz red, listeners closed after --shutdown-delay-duration, requests drained, then etcd stopped. */
  const shutdown = (signal: string): void => {
    log(`received ${signal}, shutting down`);
    server
      .close()
      .then(() => process.exit(0))
      .catch((err: unknown) => {
        log('shutdown failed', err);
        process.exit(1);
      });
  };
  process.once('SIGINT', () => shutdown('SIGINT'));
  process.once('SIGTERM', () => shutdown('SIGTERM'));
}

void main();
