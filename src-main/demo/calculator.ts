/**
 * The support bot's calculator tool: + - * / and parentheses over decimal
 * numbers, by recursive descent (never eval: the expression comes from a
 * model's tool call, which is untrusted text).
 */
class CalculatorError extends Error {
  override name = 'CalculatorError';
}

export function calculate(expression: string): number {
  const tokens = expression.match(/\d+(?:\.\d+)?|[-+*/()]|\S/g) ?? [];
  let pos = 0;
  const peek = () => tokens[pos];
  const take = () => tokens[pos++];
  const primary = (): number => {
    const t = take();
    if (t === undefined) throw new CalculatorError(`unexpected end of expression "${expression}"`);
    if (t === '(') {
      const v = sum();
      if (take() !== ')') throw new CalculatorError(`missing ")" in "${expression}"`);
      return v;
    }
    if (t === '-') return -primary();
    if (/^\d/.test(t)) return Number(t);
    throw new CalculatorError(`unexpected "${t}" in "${expression}"`);
  };
  const product = (): number => {
    let v = primary();
    while (peek() === '*' || peek() === '/') {
      const op = take();
      const r = primary();
      if (op === '/' && r === 0) throw new CalculatorError('division by zero');
      v = op === '*' ? v * r : v / r;
    }
    return v;
  };
  const sum = (): number => {
    let v = product();
    while (peek() === '+' || peek() === '-') v = take() === '+' ? v + product() : v - product();
    return v;
  };
  const value = sum();
  if (pos < tokens.length) throw new CalculatorError(`unexpected "${tokens[pos]}" in "${expression}"`);
  return Math.round(value * 1e6) / 1e6;
}
