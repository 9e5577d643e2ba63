// `legacy-gateway migration-guide`'s document: for a list of legacy methods, or for the methods one
// integration calls, what replaces each in v1, field by field, generated from the loaded mappings alone (the
// read methods' and the payment's): no method is described by hand here, so a changed mapping changes the
// guide. Pure: the command reads the mappings and the usage report, and writes the page.
import type { MappingSet } from '../mapping/mapping-set.js';
import type { PaymentMapping } from '../payment/payment-mapping.js';
import type { IntegrationCalls } from './call-shapes.js';
import { code, joined, type Block, type GuideDocument, type Text } from './document.js';
import { exampleSetup, type ExampleBases } from './example-calls.js';
import { paymentSection } from './payment-section.js';
import { legacyTemplate, readMethodSection } from './read-method-section.js';
import { API_KEY_HEADER, EXAMPLE_VARIABLES, V1_PATH_PREFIX } from './v1-conventions.js';

export interface GuideInput {
  reads: MappingSet;
  /** mappings/payment.yaml; without it, `payment` is not a method the guide knows. */
  payment: PaymentMapping | undefined;
  /** The legacy methods to cover, in order (an integration's: the methods it called). */
  methods: readonly string[];
  /** The integration the guide is written for; undefined for a guide of methods. */
  integration?: IntegrationCalls | undefined;
  bases: ExampleBases;
  /** The mappings' digest, so a reader can tell which rules a guide was made from. */
  mappingsDigest?: string | undefined;
}

/** The payment's method name, as the usage report and `--methods` spell it. */
export const PAYMENT_METHOD = 'payment';

/** The legacy methods the mappings describe: the read methods in the set's order, then the payment. */
export function knownMethods(reads: MappingSet, payment: PaymentMapping | undefined): string[] {
  return [...reads.keys(), ...(payment ? [PAYMENT_METHOD] : [])];
}

/** How the guide names an integration: its name, else the start of its fingerprint. */
export const integrationLabel = (i: IntegrationCalls): string => i.name ?? `integration ${i.fingerprint.slice(0, 12)}`;

function introduction(input: GuideInput, covered: readonly string[]): Block[] {
  const { integration } = input;
  const about: Text = integration
    ? ['This guide is for ', code(integrationLabel(integration)), ' (API key fingerprint ', code(integration.fingerprint), '): for each legacy call it made, the v1 call that replaces it']
    : ['For each legacy call below, the v1 call that replaces it'];
  const blocks: Block[] = [
    {
      kind: 'paragraph',
      text: [
        'The legacy API (', code('/api/{method}'), ') is being retired. ', ...about,
        ', and how every field of the legacy reply was made from v1\'s, as the gateway that serves the legacy API does it today. It is generated from the gateway\'s mappings',
        ...(input.mappingsDigest ? [' (digest ', code(input.mappingsDigest), ')'] : []), '.',
      ],
    },
    {
      kind: 'list',
      items: [
        ['Every v1 path starts with ', code(V1_PATH_PREFIX), " after the service's base URL. The key goes in the ", code(API_KEY_HEADER), ' header, never in the URL: v1 has no ', code('api_key'), ' query parameter.'],
        ['v1 keeps JSON types: numbers are numbers, an empty value is ', code('null'), '. The legacy replies spelled every value as a string; the tables below say how each was made.'],
        ['The examples read the base URLs and the key from shell variables (', ...joined(Object.values(EXAMPLE_VARIABLES).map((v) => code(`$${v}`))), '); set them first:'],
      ],
    },
    { kind: 'code', language: 'sh', lines: exampleSetup(input.bases) },
  ];
  if (integration && integration.statuses.size > 0) {
    const answered = [...integration.statuses].map(([status, calls]) => `${status} (${calls})`).join(', ');
    blocks.push({ kind: 'paragraph', text: [`The gateway answered its legacy calls with the HTTP statuses ${answered}.`] });
  }
  const unmapped = integration ? [...integration.methods.keys()].filter((m) => !covered.includes(m)) : [];
  if (unmapped.length > 0) {
    blocks.push({ kind: 'callout', text: ['It also called ', ...joined(unmapped.map((m) => code(m))), ', which the gateway has no mapping for today: nothing below covers them.'] });
  }
  blocks.push({ kind: 'heading', level: 2, text: ['Contents'] }, { kind: 'list', items: covered.map((m) => [code(contentsEntry(input, m))]) });
  return blocks;
}

function contentsEntry(input: GuideInput, method: string): string {
  const read = input.reads.get(method);
  return read ? `GET ${legacyTemplate(read)}` : 'POST /api/payment';
}

export function buildMigrationGuide(input: GuideInput): GuideDocument {
  const known = knownMethods(input.reads, input.payment);
  const covered = input.methods.filter((m) => known.includes(m));
  const title = input.integration
    ? `Moving ${integrationLabel(input.integration)} from the legacy API to v1`
    : `Moving from the legacy API to v1: ${covered.join(', ')}`;
  const blocks: Block[] = [{ kind: 'heading', level: 1, text: [title] }, ...introduction(input, covered)];
  for (const method of covered) {
    const use = input.integration?.methods.get(method);
    const read = input.reads.get(method);
    if (read) blocks.push(...readMethodSection(read, use));
    else if (input.payment) blocks.push(...paymentSection(input.payment, use, input.integration?.paymentCodes));
  }
  return { title, blocks };
}
