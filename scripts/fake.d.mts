/** Bundles fake-server/cli.ts into `outdir`/besi-fake.js (and its chunks); resolves with the files it was built from. */
export declare function bundleFakeCli(outdir: string): Promise<string[]>;
