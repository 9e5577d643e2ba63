// The summary's lines: printed as they come, and kept, so that the run's results file holds the same text.

const lines: string[] = [];

export function say(text = ''): void {
  console.log(text);
  lines.push(text);
}

/** `name` in a column, then its figure. */
export const sayFigure = (name: string, text: string): void => say(`${name.padEnd(62)} ${text}`);

export const everythingSaid = (): string => `${lines.join('\n')}\n`;
