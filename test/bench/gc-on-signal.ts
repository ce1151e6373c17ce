/**
 * Preloaded into a benchmarked kapi (with --expose-gc): SIGUSR2 runs a full garbage collection, so
 * the memory bench can tell what the server holds from the garbage V8 has not collected yet.
 */
process.on('SIGUSR2', () => (globalThis as { gc?: () => void }).gc?.());
