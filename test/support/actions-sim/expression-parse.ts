/**
 * The parser of GitHub Actions expressions (the language inside `${{ }}` and `if:`), for the
 * subset workflows use: literals, context property access (`a.b`, `a['b']`, `a.*.b`), `!`,
 * comparisons, `==`/`!=`, `&&`/`||`, parentheses and function calls. Precedence as GitHub
 * documents it: `()` `[]` `.` > `!` > `< <= > >=` > `== !=` > `&&` > `||`.
 */

export type Expr =
  | { readonly kind: "literal"; readonly value: null | boolean | number | string }
  | { readonly kind: "context"; readonly name: string }
  | { readonly kind: "member"; readonly object: Expr; readonly key: Expr | "*" }
  | { readonly kind: "not"; readonly operand: Expr }
  | { readonly kind: "binary"; readonly op: "==" | "!=" | "<" | "<=" | ">" | ">=" | "&&" | "||"; readonly left: Expr; readonly right: Expr }
  | { readonly kind: "call"; readonly name: string; readonly args: readonly Expr[] };

/** An expression that does not parse; `position` is the offset in the source text. */
export class ExpressionSyntaxError extends Error {
  override readonly name = "ExpressionSyntaxError";
  constructor(readonly source: string, readonly position: number, problem: string) {
    super(`${problem} at position ${position} in expression: ${source}`);
  }
}

type Token =
  | { readonly t: "num"; readonly v: number; readonly at: number }
  | { readonly t: "str"; readonly v: string; readonly at: number }
  | { readonly t: "id"; readonly v: string; readonly at: number }
  | { readonly t: "op"; readonly v: string; readonly at: number }
  | { readonly t: "end"; readonly at: number };

const OPERATORS = ["==", "!=", "<=", ">=", "&&", "||", "<", ">", "!", "(", ")", "[", "]", ".", ",", "*"];

function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < source.length) {
    const c = source[i] ?? "";
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (c === "'") {
      let value = "";
      let j = i + 1;
      for (;;) {
        if (j >= source.length) throw new ExpressionSyntaxError(source, i, "unterminated string");
        if (source[j] === "'") {
          if (source[j + 1] === "'") {
            value += "'";
            j += 2;
            continue;
          }
          break;
        }
        value += source[j];
        j++;
      }
      tokens.push({ t: "str", v: value, at: i });
      i = j + 1;
      continue;
    }
    const number = /^(?:0x[0-9a-f]+|-?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?)/i.exec(source.slice(i));
    if (number !== null && (c !== "-" || tokens.at(-1)?.t !== "num")) {
      tokens.push({ t: "num", v: Number(number[0]), at: i });
      i += number[0].length;
      continue;
    }
    const id = /^[A-Za-z_][A-Za-z0-9_-]*/.exec(source.slice(i));
    if (id !== null) {
      tokens.push({ t: "id", v: id[0], at: i });
      i += id[0].length;
      continue;
    }
    const op = OPERATORS.find((o) => source.startsWith(o, i));
    if (op === undefined) throw new ExpressionSyntaxError(source, i, `unexpected character ${JSON.stringify(c)}`);
    tokens.push({ t: "op", v: op, at: i });
    i += op.length;
  }
  tokens.push({ t: "end", at: source.length });
  return tokens;
}

/** Parses one expression; throws {@link ExpressionSyntaxError} with the position of the problem. */
export function parseExpression(source: string): Expr {
  const tokens = tokenize(source);
  let pos = 0;
  const peek = (): Token => tokens[pos] ?? { t: "end", at: source.length };
  const isOp = (v: string): boolean => {
    const token = peek();
    return token.t === "op" && token.v === v;
  };
  const expect = (v: string): void => {
    if (!isOp(v)) throw new ExpressionSyntaxError(source, peek().at, `expected '${v}'`);
    pos++;
  };

  const binaryLevel = (ops: readonly string[], next: () => Expr) => (): Expr => {
    let left = next();
    for (let token = peek(); token.t === "op" && ops.includes(token.v); token = peek()) {
      pos++;
      left = { kind: "binary", op: token.v as Extract<Expr, { kind: "binary" }>["op"], left, right: next() };
    }
    return left;
  };

  const primary = (): Expr => {
    const token = peek();
    pos++;
    if (token.t === "num") return { kind: "literal", value: token.v };
    if (token.t === "str") return { kind: "literal", value: token.v };
    if (token.t === "op" && token.v === "(") {
      const inner = or();
      expect(")");
      return inner;
    }
    if (token.t === "id") {
      const word = token.v.toLowerCase();
      if (word === "true" || word === "false") return { kind: "literal", value: word === "true" };
      if (word === "null") return { kind: "literal", value: null };
      if (isOp("(")) {
        pos++;
        const args: Expr[] = [];
        if (!isOp(")")) {
          args.push(or());
          while (isOp(",")) {
            pos++;
            args.push(or());
          }
        }
        expect(")");
        return { kind: "call", name: word, args };
      }
      return { kind: "context", name: token.v };
    }
    throw new ExpressionSyntaxError(source, token.at, token.t === "end" ? "unexpected end" : `unexpected '${token.v}'`);
  };

  const postfix = (): Expr => {
    let object = primary();
    for (;;) {
      if (isOp(".")) {
        pos++;
        const key = peek();
        pos++;
        if (key.t === "op" && key.v === "*") object = { kind: "member", object, key: "*" };
        else if (key.t === "id") object = { kind: "member", object, key: { kind: "literal", value: key.v } };
        else throw new ExpressionSyntaxError(source, key.at, "expected a property name after '.'");
      } else if (isOp("[")) {
        pos++;
        const key: Expr | "*" = isOp("*") ? (pos++, "*") : or();
        expect("]");
        object = { kind: "member", object, key };
      } else {
        return object;
      }
    }
  };

  const unary = (): Expr => {
    if (isOp("!")) {
      pos++;
      return { kind: "not", operand: unary() };
    }
    return postfix();
  };
  const comparison = binaryLevel(["<", "<=", ">", ">="], unary);
  const equality = binaryLevel(["==", "!="], comparison);
  const and = binaryLevel(["&&"], equality);
  const or: () => Expr = binaryLevel(["||"], and);

  const expr = or();
  if (peek().t !== "end") throw new ExpressionSyntaxError(source, peek().at, "unexpected text after the expression");
  return expr;
}

/** True when the expression calls one of the status functions (then GitHub adds no implicit `success()`). */
export function usesStatusFunction(expr: Expr): boolean {
  switch (expr.kind) {
    case "call":
      return ["success", "failure", "always", "cancelled"].includes(expr.name) || expr.args.some(usesStatusFunction);
    case "member":
      return usesStatusFunction(expr.object) || (expr.key !== "*" && usesStatusFunction(expr.key));
    case "not":
      return usesStatusFunction(expr.operand);
    case "binary":
      return usesStatusFunction(expr.left) || usesStatusFunction(expr.right);
    default:
      return false;
  }
}
