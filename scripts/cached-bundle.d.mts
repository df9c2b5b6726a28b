/** The folder of a current build of `name`, built now if there is none: `bundle(outdir)` writes it and resolves with the files (paths relative to the repository) it was built from. */
export declare function cachedBundle(name: string, bundle: (outdir: string) => Promise<string[]>): Promise<string>;
/** esbuild's options for a command of this repository: ES modules for Node 20, the metafile's paths relative to the repository. */
export declare const NODE_BUNDLE: import('esbuild').BuildOptions;
