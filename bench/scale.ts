export interface ScaleResult {
  readonly customers: number;
  readonly subscriptions: number;
  readonly entities: number;
  readonly seedSeconds: number;
  readonly rssMiB: number;
  readonly heapMiB: number;
  readonly pages: readonly { operation: string; depth: number; firstMs: number; deepMs: number; deepVsFirst: number }[];
}
