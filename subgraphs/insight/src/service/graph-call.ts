/** One named router operation with the given headers (kit's router client, bound in the wiring). */
export type GraphCall = <T = Record<string, unknown>>(operation: string, variables: Record<string, unknown>, headers: Record<string, string>) => Promise<T>;
