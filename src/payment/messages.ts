// Fills the `{name}` placeholders of a message template from mappings/payment.yaml. Pure.
export function fill(template: string, values: Readonly<Record<string, string | number>>): string {
  return template.replace(/\{([a-z_]+)\}/g, (whole, name: string) => (name in values ? String(values[name]) : whole));
}
