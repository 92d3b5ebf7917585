/**
 * Where the fake's GraphQL schema says something GitHub's does not: a type, field, argument,
 * interface or enum value GitHub lacks, a field or argument of another type or nullability, an
 * argument default that differs, or an argument of GitHub's that the fake leaves out (a query
 * using it would pass on GitHub and fail against the fake). Fields GitHub has and the fake does
 * not serve are fine: the fake serves a part of GitHub's schema, never something else.
 */
import {
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isObjectType,
  isScalarType,
  isUnionType,
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLSchema,
} from "graphql";

/** Every disagreement of `fake` with `github`, one line each; empty when the fake is a part of GitHub's schema. */
export function schemaDifferences(fake: GraphQLSchema, github: GraphQLSchema): string[] {
  const problems: string[] = [];
  for (const type of Object.values(fake.getTypeMap())) {
    if (type.name.startsWith("__")) continue;
    const theirs = github.getType(type.name);
    if (theirs === undefined || theirs === null) {
      problems.push(`type ${type.name}: GitHub has no such type`);
      continue;
    }
    if (kindOf(type) !== kindOf(theirs)) {
      problems.push(`type ${type.name}: is ${kindOf(type)} in the fake, ${kindOf(theirs)} on GitHub`);
      continue;
    }
    problems.push(...typeDifferences(type, theirs));
  }
  for (const [root, ours, theirs] of [
    ["query", fake.getQueryType(), github.getQueryType()],
    ["mutation", fake.getMutationType(), github.getMutationType()],
  ] as const) {
    if (ours && ours.name !== theirs?.name) problems.push(`${root} root: ${ours.name} in the fake, ${theirs?.name ?? "none"} on GitHub`);
  }
  return problems;
}

function kindOf(type: GraphQLNamedType): string {
  if (isObjectType(type)) return "an object type";
  if (isInterfaceType(type)) return "an interface";
  if (isUnionType(type)) return "a union";
  if (isEnumType(type)) return "an enum";
  if (isInputObjectType(type)) return "an input object";
  return isScalarType(type) ? "a scalar" : "unknown";
}

function typeDifferences(ours: GraphQLNamedType, theirs: GraphQLNamedType): string[] {
  const problems: string[] = [];
  if ((isObjectType(ours) || isInterfaceType(ours)) && (isObjectType(theirs) || isInterfaceType(theirs))) {
    const known = new Set(theirs.getInterfaces().map((i) => i.name));
    for (const i of ours.getInterfaces()) if (!known.has(i.name)) problems.push(`type ${ours.name}: implements ${i.name} in the fake, not on GitHub`);
    const fields = theirs.getFields();
    for (const field of Object.values(ours.getFields())) {
      const match = fields[field.name];
      if (match === undefined) problems.push(`${ours.name}.${field.name}: GitHub has no such field`);
      else problems.push(...fieldDifferences(`${ours.name}.${field.name}`, field, match));
    }
  }
  if (isUnionType(ours) && isUnionType(theirs)) {
    const members = new Set(theirs.getTypes().map((t) => t.name));
    for (const t of ours.getTypes()) if (!members.has(t.name)) problems.push(`union ${ours.name}: ${t.name} is not a member on GitHub`);
  }
  if (isEnumType(ours) && isEnumType(theirs)) {
    const values = (t: typeof ours) =>
      t
        .getValues()
        .map((v) => v.name)
        .sort()
        .join(" ");
    if (values(ours) !== values(theirs)) problems.push(`enum ${ours.name}: ${values(ours)} in the fake, ${values(theirs)} on GitHub`);
  }
  if (isInputObjectType(ours) && isInputObjectType(theirs)) {
    const fields = theirs.getFields();
    for (const field of Object.values(ours.getFields())) {
      const type = fields[field.name]?.type.toString();
      if (type !== field.type.toString())
        problems.push(`input ${ours.name}.${field.name}: ${field.type.toString()} in the fake, ${type ?? "absent"} on GitHub`);
    }
  }
  return problems;
}

function fieldDifferences(where: string, ours: GraphQLField<unknown, unknown>, theirs: GraphQLField<unknown, unknown>): string[] {
  const problems: string[] = [];
  if (ours.type.toString() !== theirs.type.toString()) problems.push(`${where}: ${ours.type.toString()} in the fake, ${theirs.type.toString()} on GitHub`);
  const args = new Map(theirs.args.map((a) => [a.name, a]));
  for (const arg of ours.args) {
    const match = args.get(arg.name);
    if (match === undefined) problems.push(`${where}(${arg.name}): GitHub has no such argument`);
    else if (signature(arg) !== signature(match)) problems.push(`${where}(${arg.name}): ${signature(arg)} in the fake, ${signature(match)} on GitHub`);
  }
  const served = new Set(ours.args.map((a) => a.name));
  for (const arg of theirs.args) if (!served.has(arg.name)) problems.push(`${where}(${arg.name}): GitHub accepts this argument, the fake does not`);
  return problems;
}

function signature(arg: GraphQLArgument): string {
  return arg.defaultValue === undefined ? arg.type.toString() : `${arg.type.toString()} = ${JSON.stringify(arg.defaultValue)}`;
}
