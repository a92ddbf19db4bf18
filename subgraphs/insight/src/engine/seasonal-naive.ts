/** The baseline every forecast must beat: repeat the last full season. */
export function seasonalNaive(history: readonly number[], horizon: number, period: number): number[] {
  const season = history.slice(-period);
  if (season.length === 0) return [];
  return Array.from({ length: horizon }, (_, i) => season[i % season.length]!);
}
