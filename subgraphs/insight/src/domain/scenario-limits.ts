/**
 * Bounds of a forecast and of a what-if simulation: the engine keeps to them (engine/forecast.ts,
 * engine/simulate.ts) and the tools' inputs are checked against them (scenario-input.ts). Kept
 * here so the inputs need nothing from the engine.
 */
export const FORECAST_LIMITS = { minPoints: 10, maxHorizon: 366, maxHistory: 5000 } as const;

export const SIMULATION_LIMITS = { maxRuns: 20_000, minRuns: 100 } as const;
