// Loaded by `--import` before tsx's loader (`node --import ./suites/vitest-first.mjs --import tsx
// suites/cli.ts run`): a run loads vitest's node API, hundreds of modules of plain JavaScript, and
// under tsx's loader that cost about 2.3 CPU-s, against 0.6 before it registers (Node 20 has no
// way past the hooks once they are in). suites/cli.ts then finds the modules loaded. Other commands
// (argv[2] is the command) need no vitest, and load none here.
if (process.argv[2] === 'run') await import('vitest/node');
