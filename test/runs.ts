/**
 * A property test's run count: as written, or at most 25 under mutation testing (`TK_MUTATION`,
 * which scripts/mutation.mjs sets). Stryker reruns every test that covers a mutant, and a mutant
 * that survives runs the property to the end; most mutants fail in the first runs. A mutant that
 * only a later run would find counts as a survivor, so the score errs low, never high.
 */
export const runs = (count: number): number => (process.env.TK_MUTATION === undefined ? count : Math.min(count, 25))
