// Values the globalSetup files provide to tests (read with `inject` from 'vitest').
declare module 'vitest' {
  export interface ProvidedContext {
    /** Origin of the loopback HTTP server of test/loopback-server.ts, e.g. http://127.0.0.1:41234. */
    loopbackOrigin: string;
    /** Deliveries signed by the providers' own libraries in Node (test/signatures/provider-signers.ts). */
    providerDeliveries: import('./signatures/provider-bodies').ProviderDeliveries;
    /** Deliveries of the URL, body-field and public-key presets, by preset id (test/signatures/extension-signers.ts). */
    extensionDeliveries: import('./signatures/extension-signers').ProviderDeliveries;
  }
}
export {};
