// The package's library entry: `import { legacyGateway } from 'legacy-gateway'` (docs/configuration.md: the library).
// The command line is dist/cli.js; nothing here starts a server or reads the environment.
export { legacyGateway, type LegacyGatewayOptions, type LegacyGatewayRouter } from './gateway/library.js';
export { ConfigError } from './gateway/config.js';
export { MappingSetError } from './mapping/mapping-set.js';
export type { GatewayMetrics } from './gateway/metrics/gateway-metrics.js';
