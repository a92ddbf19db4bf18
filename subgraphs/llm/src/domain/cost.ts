/** USD per million tokens, input and output. */
export interface Price {
  inputPerMTok: number;
  outputPerMTok: number;
}

/** Money is rounded up to the micro-dollar: rounding never makes a request cheaper. */
export function roundUsd(usd: number): number {
  return Math.ceil(usd * 1e6 - 1e-9) / 1e6;
}

export function costUsd(promptTokens: number, completionTokens: number, price: Price): number {
  return roundUsd((promptTokens * price.inputPerMTok + completionTokens * price.outputPerMTok) / 1e6);
}

/** The most a request can cost: every prompt token plus the most output it may produce, at the dearest price among its deployments. */
export function worstCaseUsd(promptTokens: number, maxOutputTokens: number, prices: readonly Price[]): number {
  return Math.max(0, ...prices.map((p) => costUsd(promptTokens, maxOutputTokens, p)));
}
