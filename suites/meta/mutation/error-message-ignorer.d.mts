import type { Ignorer } from '@stryker-mutator/api/ignore';

export declare const errorMessageIgnorer: Ignorer;
export declare const strykerPlugins: readonly unknown[];
