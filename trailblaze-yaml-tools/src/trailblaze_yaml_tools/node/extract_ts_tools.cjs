// Reads typed TypeScript tools (`export const <name> = trailblaze.tool<Args>(spec?, handler)`) and prints,
// as one JSON object on stdout, each tool's input schema (derived from its `Args` type by
// ts-json-schema-generator, TSDoc as descriptions), the TSDoc of the exported const and the inline
// literal fields of `spec`. Same contract as upstream's sdks/typescript/tools/extract-tool-defs.mjs,
// written for Trailblaze for Python (trailblaze_yaml_tools.ts_tools runs it).
//
// Input: a JSON array of absolute file paths on stdin. Output:
//   {"versions": {...}, "tools": [{file, name, line, description, inputSchema, spec}],
//    "errors": [{file, name, line, message}]}
// CommonJS on purpose: `require` honours NODE_PATH, which is how the bootstrap's tools are found.
// One TypeScript program for all files: building a program is the expensive step.
"use strict";

const SDK_PACKAGE = "@trailblaze/scripting";
const SPEC_FIELDS = new Set([
  "description", "supportedPlatforms", "requiresContext", "requiresHost", "supportedDrivers",
  "surfaceToLlm", "isRecordable", "trailhead",
]);

function fail(message) {
  process.stdout.write(JSON.stringify({ fatal: message }));
  process.exit(0);
}

let ts;
let tjs;
try {
  ts = require("typescript");
  tjs = require("ts-json-schema-generator");
} catch (e) {
  const missing = /'([^']+)'/.exec(String(e && e.message))?.[1] ?? "typescript";
  fail(`cannot load '${missing}' (needed to derive the schemas of typed .ts tools): install it with ` +
       "scripts/bootstrap.sh, or `npm install typescript ts-json-schema-generator` and put its " +
       "node_modules on NODE_PATH");
}

function readStdin() {
  return require("node:fs").readFileSync(0, "utf-8");
}

/** Local names that stand for the SDK's `trailblaze` export (the bare name always does). */
function trailblazeNames(sourceFile) {
  const names = new Set(["trailblaze"]);
  for (const stmt of sourceFile.statements) {
    if (!ts.isImportDeclaration(stmt) || !ts.isStringLiteral(stmt.moduleSpecifier)) continue;
    if (stmt.moduleSpecifier.text !== SDK_PACKAGE) continue;
    const bindings = stmt.importClause?.namedBindings;
    if (bindings && ts.isNamedImports(bindings)) {
      for (const el of bindings.elements) {
        if ((el.propertyName ?? el.name).text === "trailblaze") names.add(el.name.text);
      }
    }
  }
  return names;
}

function literal(node, depth) {
  if (depth > 3) return undefined;
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  if (ts.isNumericLiteral(node)) return Number(node.text);
  if (node.kind === ts.SyntaxKind.TrueKeyword) return true;
  if (node.kind === ts.SyntaxKind.FalseKeyword) return false;
  if (ts.isAsExpression(node) || ts.isParenthesizedExpression(node) || ts.isSatisfiesExpression?.(node)) {
    return literal(node.expression, depth);
  }
  if (ts.isArrayLiteralExpression(node)) {
    const out = [];
    for (const el of node.elements) {
      const v = literal(el, depth + 1);
      if (v === undefined) return undefined;
      out.push(v);
    }
    return out;
  }
  if (ts.isObjectLiteralExpression(node)) {
    const out = {};
    for (const prop of node.properties) {
      if (!ts.isPropertyAssignment(prop)) continue;
      const key = ts.isIdentifier(prop.name) || ts.isStringLiteral(prop.name) ? prop.name.text : null;
      const v = key === null ? undefined : literal(prop.initializer, depth + 1);
      if (v !== undefined) out[key] = v;
    }
    return out;
  }
  return undefined;
}

/** The inline literal fields of a `(spec, handler)` call's spec; identifiers and spreads are skipped. */
function specOf(call) {
  if (call.arguments.length < 2 || !ts.isObjectLiteralExpression(call.arguments[0])) return undefined;
  const out = {};
  for (const prop of call.arguments[0].properties) {
    if (!ts.isPropertyAssignment(prop)) continue;
    const key = ts.isIdentifier(prop.name) || ts.isStringLiteral(prop.name) ? prop.name.text : null;
    if (key === null || !SPEC_FIELDS.has(key)) continue;
    const v = literal(prop.initializer, 1);
    if (v !== undefined) out[key] = v;
  }
  return Object.keys(out).length ? out : undefined;
}

/** The TSDoc block right above the exported statement: its text without tags, or null. */
function tsdoc(stmt) {
  const docs = ts.getJSDocCommentsAndTags(stmt.declarationList.declarations[0]);
  for (let i = docs.length - 1; i >= 0; i--) {
    const doc = docs[i];
    if (!ts.isJSDoc(doc)) continue;
    const text = typeof doc.comment === "string" ? doc.comment : ts.getTextOfJSDocComment(doc.comment);
    if (text && text.trim()) return text.trim();
  }
  return null;
}

/** Inline every `$ref` into `#/definitions/...` (our tool model keeps schemas inline). */
function inline(schema, definitions, seen) {
  if (Array.isArray(schema)) return schema.map((s) => inline(s, definitions, seen));
  if (schema === null || typeof schema !== "object") return schema;
  if (typeof schema.$ref === "string" && schema.$ref.startsWith("#/definitions/")) {
    const name = decodeURIComponent(schema.$ref.slice("#/definitions/".length));
    if (seen.has(name)) throw new Error(`type '${name}' refers to itself; a tool's arguments cannot be recursive`);
    const target = definitions[name];
    if (target === undefined) throw new Error(`unresolved type reference '${name}'`);
    const { $ref, ...rest } = schema;
    return { ...inline(target, definitions, new Set([...seen, name])), ...rest };
  }
  const out = {};
  for (const [k, v] of Object.entries(schema)) {
    if (k === "$schema" || k === "definitions") continue;
    out[k] = inline(v, definitions, seen);
  }
  return out;
}

function main() {
  const files = JSON.parse(readStdin());
  const tools = [];
  const errors = [];
  const versions = { typescript: ts.version, "ts-json-schema-generator": require("ts-json-schema-generator/package.json").version };
  const options = {
    target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler,
    strict: true, noEmit: true, skipLibCheck: true, allowJs: false, types: [], noResolve: false,
  };
  const program = ts.createProgram(files, options);
  const config = {
    expose: "all", topRef: false, jsDoc: "extended", additionalProperties: false, skipTypeCheck: true,
    sortProps: false, encodeRefs: false, functions: "hide", discriminatorType: "json-schema",
    extraTags: [], markdownDescription: false, fullDescription: false, strictTuples: false, minify: false,
  };
  let generator = null;
  const generatorFor = () => {
    if (generator === null) {
      generator = new tjs.SchemaGenerator(program, tjs.createParser(program, config), tjs.createFormatter(config), config);
    }
    return generator;
  };
  const checker = program.getTypeChecker();

  for (const file of files) {
    const sourceFile = program.getSourceFile(file);
    if (!sourceFile) {
      errors.push({ file, name: null, line: null, message: "cannot read the file" });
      continue;
    }
    const receivers = trailblazeNames(sourceFile);
    for (const stmt of sourceFile.statements) {
      if (!ts.isVariableStatement(stmt)) continue;
      if (!(ts.getModifiers(stmt) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) continue;
      for (const decl of stmt.declarationList.declarations) {
        const call = decl.initializer;
        if (!call || !ts.isCallExpression(call) || !ts.isPropertyAccessExpression(call.expression)) continue;
        if (call.expression.name.text !== "tool") continue;
        const receiver = call.expression.expression;
        if (!ts.isIdentifier(receiver) || !receivers.has(receiver.text)) continue;
        const line = sourceFile.getLineAndCharacterOfPosition(decl.getStart(sourceFile)).line + 1;
        const name = ts.isIdentifier(decl.name) ? decl.name.text : null;
        if (name === null) {
          errors.push({ file, name, line, message: "only `export const <name> = trailblaze.tool(...)` is supported" });
          continue;
        }
        const typeArgs = call.typeArguments ?? [];
        if (typeArgs.length > 2) {
          errors.push({ file, name, line, message: `tool '${name}': at most two type arguments (input, output), got ${typeArgs.length}` });
          continue;
        }
        let inputSchema = { type: "object", properties: {}, additionalProperties: false };
        if (typeArgs.length >= 1) {
          const arg = typeArgs[0];
          if (!ts.isTypeReferenceNode(arg) || !ts.isIdentifier(arg.typeName)) {
            errors.push({ file, name, line, message: `tool '${name}': the arguments type must be a named interface or type alias (\`interface Args { ... }\` then \`trailblaze.tool<Args>(...)\`), not '${arg.getText(sourceFile)}'` });
            continue;
          }
          let symbol = checker.getSymbolAtLocation(arg.typeName);
          if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
          const target = symbol?.declarations?.find((d) => ts.isInterfaceDeclaration(d) || ts.isTypeAliasDeclaration(d));
          if (target === undefined && arg.typeName.text !== "EmptyInput") {
            errors.push({ file, name, line, message: `tool '${name}': cannot find the type '${arg.typeName.text}' (declare it in the tool file or import it from a local module)` });
            continue;
          }
          if (target !== undefined) {
            try {
              const raw = generatorFor().createSchemaFromNodes([target]);
              // topRef: false puts the root type's schema at the top; `definitions` holds what it refers to.
              inputSchema = inline(raw, raw.definitions ?? {}, new Set([arg.typeName.text]));
            } catch (e) {
              errors.push({ file, name, line, message: `tool '${name}' arguments type '${arg.typeName.text}': ${e && e.message ? e.message.split("\n")[0] : e}` });
              continue;
            }
          }
        }
        const spec = specOf(call);
        tools.push({ file, name, line, description: tsdoc(stmt), inputSchema, ...(spec ? { spec } : {}) });
      }
    }
  }
  process.stdout.write(JSON.stringify({ versions, tools, errors }));
}

try {
  main();
} catch (e) {
  fail(`the schema extractor failed: ${e && e.stack ? e.stack : e}`);
}
