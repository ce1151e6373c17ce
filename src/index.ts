/** The `kapi` package: the server as a library and the test helpers. Importing it starts nothing; the CLI is `kapi` (main.ts). */
export { startKapi, insecureKubeconfig, type Kapi, type StartKapiOptions } from './testing';
export { startServer, type RunningServer } from './server/start-server';
export { defaultConfig, parseFlags, type Config } from './server/config';
export { createLogger, type Logger, type LevelLogger, type LoggerOptions } from './server/logger';
