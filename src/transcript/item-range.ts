/** A half-open range `[start, end)` of transcript indices. */
export interface ItemRange {
  readonly start: number;
  readonly end: number;
}
