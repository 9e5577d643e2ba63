// The message templates of mappings/payment.yaml (`messages`) filled in: each `{name}` placeholder replaced
// by its value, an unknown one left as it is. Pure.
export function fillMessage(template: string, values: Readonly<Record<string, string | number>>): string {
  return template.replace(/\{([a-z_]+)\}/g, (whole, name: string) => (name in values ? String(values[name]) : whole));
}
