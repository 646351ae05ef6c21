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

/** Local names that stand for the SDK's `trailblaze` export (the bare name always does), and the names
 * of namespace imports (`import * as sdk`), whose `sdk.trailblaze.tool(...)` is the same call. */
function trailblazeNames(sourceFile) {
  const names = new Set(["trailblaze"]);
  for (const stmt of sourceFile.statements) {
    if (!ts.isImportDeclaration(stmt) || !ts.isStringLiteral(stmt.moduleSpecifier)) continue;
    if (stmt.moduleSpecifier.text !== SDK_PACKAGE) continue;
    const bindings = stmt.importClause?.namedBindings;
    if (bindings && ts.isNamespaceImport(bindings)) {
      names.add(bindings.name.text);
    } else if (bindings && ts.isNamedImports(bindings)) {
      for (const el of bindings.elements) {
        if ((el.propertyName ?? el.name).text === "trailblaze") names.add(el.name.text);
      }
    }
  }
  return names;
}

/** `<alias>.tool(...)` or `<namespace>.trailblaze.tool(...)`, as upstream's `isTrailblazeReceiver`. */
function isTrailblazeReceiver(receiver, names) {
  if (ts.isIdentifier(receiver)) return names.has(receiver.text);
  return ts.isPropertyAccessExpression(receiver) && receiver.name.text === "trailblaze"
    && ts.isIdentifier(receiver.expression) && names.has(receiver.expression.text);
}

const MAX_LITERAL_DEPTH = 8;

/** An inline JSON literal as upstream reads one: strings, booleans, arrays of them (one unreadable
 * element voids the array) and objects (unreadable keys skipped). Anything else — numbers, `null`,
 * identifiers, and `[...] as const` too — is unreadable, so the field is left out as upstream does. */
function literal(node, depth) {
  if (depth >= MAX_LITERAL_DEPTH) return undefined;
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  if (node.kind === ts.SyntaxKind.TrueKeyword) return true;
  if (node.kind === ts.SyntaxKind.FalseKeyword) return false;
  if (ts.isArrayLiteralExpression(node)) {
    const out = [];
    for (const el of node.elements) {
      if (ts.isSpreadElement(el)) return undefined;
      const v = literal(el, depth + 1);
      if (v === undefined) return undefined;
      out.push(v);
    }
    return out;
  }
  if (ts.isObjectLiteralExpression(node)) {
    const out = Object.create(null);
    for (const prop of node.properties) {
      if (!ts.isPropertyAssignment(prop)) continue;
      if (!ts.isIdentifier(prop.name) && !ts.isStringLiteral(prop.name)) continue;
      const v = literal(prop.initializer, depth + 1);
      if (v !== undefined) out[prop.name.text] = v;
    }
    return Object.keys(out).length ? { ...out } : undefined;
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
    const v = literal(prop.initializer, 0);
    if (v !== undefined) out[key] = v;
  }
  return Object.keys(out).length ? out : undefined;
}

/** `tool(SPEC, handler)` with a spec the analyzer cannot read (a constant, a factory call): the whole
 * spec — platforms, drivers, surfaceToLlm — would be dropped (upstream's `specArgIsUncapturedReference`). */
function specIsUncapturedReference(call) {
  if (call.arguments.length !== 2) return false;
  const first = call.arguments[0];
  return !(ts.isArrowFunction(first) || ts.isFunctionExpression(first) || ts.isObjectLiteralExpression(first)
    || ts.isStringLiteral(first));
}

/** The last `/** ... *\/` block right above the exported statement, tags and all (upstream keeps
 * `@param`, `@example`… in the description), or null. */
function tsdoc(stmt, text) {
  const ranges = ts.getLeadingCommentRanges(text, stmt.getFullStart()) ?? [];
  for (let i = ranges.length - 1; i >= 0; i--) {
    const range = ranges[i];
    if (range.kind !== ts.SyntaxKind.MultiLineCommentTrivia) continue;
    const block = text.slice(range.pos, range.end);
    if (!block.startsWith("/**")) continue;
    const inner = block.replace(/^\/\*\*/, "").replace(/\*\/$/, "").replace(/^[ \t]*\*[ \t]?/gm, "").trim();
    return inner || null;
  }
  return null;
}

/** Every `$ref` into `#/definitions/...` inlined, except those that close a cycle (a recursive type):
 * those stay `$ref`s and their types are kept in the root `definitions`, so the schema stays whole. */
function inline(schema, definitions, active, kept) {
  if (Array.isArray(schema)) return schema.map((s) => inline(s, definitions, active, kept));
  if (schema === null || typeof schema !== "object") return schema;
  if (typeof schema.$ref === "string" && schema.$ref.startsWith("#/definitions/")) {
    const name = decodeURIComponent(schema.$ref.slice("#/definitions/".length));
    const target = definitions[name];
    if (target === undefined) throw new Error(`unresolved type reference '${name}'`);
    if (active.has(name)) {
      kept.add(name);
      return { ...schema, $ref: `#/definitions/${encodeURIComponent(name)}` };
    }
    const { $ref, ...rest } = schema;
    return { ...inline(target, definitions, new Set([...active, name]), kept),
             ...inline(rest, definitions, active, kept) };
  }
  const out = {};
  for (const [k, v] of Object.entries(schema)) out[k] = inline(v, definitions, active, kept);
  return out;
}

/** The root type's schema with its recursive types, if any, under `definitions`. */
function rootSchema(raw, rootName) {
  const { $schema, definitions = {}, ...root } = raw;
  const kept = new Set();
  const schema = inline(root, definitions, new Set([rootName]), kept);
  if (kept.size === 0) return schema;
  const bag = {};
  for (let changed = true; changed;) {  // a kept type may refer to another recursive one
    changed = false;
    for (const name of [...kept]) {
      if (bag[name] !== undefined) continue;
      bag[name] = name === rootName ? schema : inline(definitions[name], definitions, new Set([name]), kept);
      changed = true;
    }
  }
  return { ...schema, definitions: bag };
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
    sortProps: false, encodeRefs: false, functions: "fail", discriminatorType: "json-schema",
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
        if (!isTrailblazeReceiver(call.expression.expression, receivers)) continue;
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
              inputSchema = rootSchema(raw, arg.typeName.text);
            } catch (e) {
              errors.push({ file, name, line, message: `tool '${name}' arguments type '${arg.typeName.text}': ${e && e.message ? e.message.split("\n")[0] : e}` });
              continue;
            }
          }
        }
        const spec = specOf(call);
        if (spec === undefined && specIsUncapturedReference(call)) {
          // Upstream fails a descriptor-less tool whose spec it cannot read: shipping it would advertise
          // it ungated on every platform (AnalyzerScriptedToolEnrichment.kt).
          errors.push({ file, name, line, message: `tool '${name}': trailblaze.tool(spec, handler) was called with ` +
            "a spec that is not an inline object literal (a constant or a factory call), so its supportedPlatforms, " +
            "supportedDrivers and surfaceToLlm cannot be read and the tool would be offered everywhere: write the " +
            "spec inline, e.g. trailblaze.tool<Args>({ supportedPlatforms: [\"web\"] }, async (args, ctx) => ...)" });
          continue;
        }
        tools.push({ file, name, line, description: tsdoc(stmt, sourceFile.text), inputSchema, ...(spec ? { spec } : {}) });
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
