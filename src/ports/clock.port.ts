/** Wall-clock time in milliseconds since the epoch. */
export interface Clock {
  now(): number
}
