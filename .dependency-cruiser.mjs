// The import rules of the project (docs/contributing.md, "Import rules"), checked by dependency-cruiser in
// `npm test` (scripts/import-rules.test.ts): no import circle anywhere, and the few layer rules below.
// Type-only imports count: a circle of types still ties two modules together.

/** The fake's public entry points: what a package user (and the suite's embedded target) may import. */
const FAKE_ENTRY_POINTS = '^fake-server/(index|control-client)[.]ts$';

/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import circle: each module of it needs the others to load, and none can be read, tested or moved alone.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'domain-knows-no-http',
      severity: 'error',
      comment: "The fake's domain rules and storage are plain functions over state: no HTTP adapter, no router.",
      from: { path: '^fake-server/(domain|store)/' },
      to: { path: '^fake-server/(http/|router[.]ts$)' },
    },
    {
      name: 'domain-knows-no-faults',
      severity: 'error',
      comment: "The deliberately broken variants (fake-server/faults/) wrap the domain; the domain never knows them.",
      from: { path: '^fake-server/(domain|store)/' },
      to: { path: '^fake-server/faults/' },
    },
    {
      name: 'fake-knows-no-suite',
      severity: 'error',
      comment: 'The fake is a product of its own: it imports nothing of the conformance suite.',
      from: { path: '^fake-server/' },
      to: { path: '^suites/' },
    },
    {
      name: 'spec-stands-alone',
      severity: 'error',
      comment: 'spec/ is the contract both sides read: it imports neither the fake nor the suite.',
      from: { path: '^spec/' },
      to: { path: '^(fake-server|suites)/' },
    },
    {
      name: 'suite-uses-fake-entry-points',
      severity: 'error',
      comment:
        "The suite runs unchanged against any implementation: its scenarios, framework, reports and CLI reach the fake only through its public entry points (the embedded target). Only the meta-tests (suites/meta/), which break the fake on purpose, and exploration against the reference model (suites/explore/) look inside.",
      from: { path: '^suites/', pathNot: '^suites/(meta|explore)/' },
      to: { path: '^fake-server/', pathNot: FAKE_ENTRY_POINTS },
    },
  ],
  options: {
    // TypeScript 7, the project's compiler, no longer ships the compiler API dependency-cruiser parses with; swc parses TypeScript as well.
    parser: 'swc',
    doNotFollow: { path: '(^|/)node_modules/' },
    exclude: { path: '(^|/)node_modules/|^dist/' },
    moduleSystems: ['es6', 'cjs'],
    enhancedResolveOptions: { extensions: ['.ts', '.mts', '.js', '.mjs', '.cjs', '.json'] },
  },
};
