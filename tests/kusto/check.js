// Checks KQL texts with Kusto.Language, the parser and semantic analyser behind the Log
// Analytics query editor (npm @kusto/language-service-next, pinned in package.json).
//
// The database symbols are the documented tables of tables.json, in a few shapes of
// workspace (DATABASES below), so an unknown table or column, or a column used as the
// wrong type, is an error as it would be in Log Analytics.
//
// Protocol (tests/kusto/checker.py): one JSON object a line on stdin,
//   {"text": "...", "database": "workspace"}
// and one answer a line on stdout, in order,
//   {"diagnostics": [{"severity", "code", "message", "start", "length"}, ...],
//    "columns": [{"name", "type"}, ...]}   (the result's columns, in order)
// or {"error": "..."} for a request it could not read. The first line it prints is
// {"ready": [database names]} once the parser is loaded (2-3 s).
"use strict";

const fs = require("fs");
const path = require("path");
const readline = require("readline");

require("@kusto/language-service-next/bridge.min.js");
require("@kusto/language-service-next/Kusto.Language.Bridge.min.js");

const K = Kusto.Language;
const S = K.Symbols;
const TYPES = {
  string: S.ScalarTypes.String,
  int: S.ScalarTypes.Int,
  long: S.ScalarTypes.Long,
  real: S.ScalarTypes.Real,
  bool: S.ScalarTypes.Bool,
  datetime: S.ScalarTypes.DateTime,
  timespan: S.ScalarTypes.TimeSpan,
  guid: S.ScalarTypes.Guid,
  dynamic: S.ScalarTypes.Dynamic,
};

const schema = JSON.parse(fs.readFileSync(path.join(__dirname, "tables.json"), "utf8"));

function table(name, columns) {
  const symbols = Object.entries(columns).map(([column, type]) => {
    if (!(type in TYPES)) throw new Error(`${name}.${column}: unknown type ${type}`);
    return new S.ColumnSymbol(column, TYPES[type]);
  });
  return new S.TableSymbol.$ctor4(name, symbols);
}

const RESOURCE_SPECIFIC = Object.keys(schema.tables).filter((t) => t !== "AzureDiagnostics");
const AGGREGATED = RESOURCE_SPECIFIC.filter((t) => /^CDBDataPlaneRequests(5|15)M$/.test(t));
const diagnostics = schema.tables.AzureDiagnostics;
const withCosmos = { ...diagnostics.columns, ...diagnostics.cosmos_columns };

// Which tables a workspace holds decides what a text may name: the console sends the
// resource-specific texts only where those tables exist, the legacy texts only where
// AzureDiagnostics does, and the tables probe everywhere.
const DATABASES = {
  // Every table, AzureDiagnostics with the columns Cosmos DB adds to it.
  workspace: [
    ...RESOURCE_SPECIFIC.map((t) => table(t, schema.tables[t].columns)),
    table("AzureDiagnostics", withCosmos),
  ],
  // Resource-specific logs only (no AzureDiagnostics table at all).
  "resource-specific": RESOURCE_SPECIFIC.map((t) => table(t, schema.tables[t].columns)),
  // Only the aggregated request logs (DataPlaneRequests5M / 15M, Microsoft's
  // recommendation): no per-request table, no RU log.
  aggregated: AGGREGATED.map((t) => table(t, schema.tables[t].columns)),
  // Legacy logs only, the Cosmos DB columns present.
  azurediagnostics: [table("AzureDiagnostics", withCosmos)],
  // Legacy logs only, before a given Cosmos DB column first arrived (or under another
  // casing): the documented minimum columns alone.
  "azurediagnostics-bare": [table("AzureDiagnostics", diagnostics.columns)],
  // Legacy logs whose Cosmos DB columns came only under the undocumented spellings the
  // texts also try (console_fallbacks): those must type-check too.
  "azurediagnostics-fallbacks": [
    table("AzureDiagnostics", { ...diagnostics.columns, ...diagnostics.console_fallbacks }),
  ],
};

const globals = {};
for (const [name, tables] of Object.entries(DATABASES)) {
  globals[name] = K.GlobalState.Default.WithDatabase(new S.DatabaseSymbol.ctor("db", tables));
}

function check(text, database) {
  const state = globals[database];
  if (state === undefined) throw new Error(`unknown database ${database}`);
  const code = K.KustoCode.ParseAndAnalyze(text, state);
  const found = code.GetDiagnostics();
  const out = [];
  for (let i = 0; i < found.Count; i++) {
    const d = found.getItem(i);
    out.push({
      severity: String(d.Severity),
      code: String(d.Code),
      message: String(d.Message),
      start: d.Start,
      length: d.Length,
    });
  }
  // The result's columns: what the query hands back (a table, for a query).
  const columns = [];
  const result = code.ResultType;
  if (result && result.Columns) {
    for (let i = 0; i < result.Columns.Count; i++) {
      const column = result.Columns.getItem(i);
      columns.push({ name: String(column.Name), type: String(column.Type.Name) });
    }
  }
  return { diagnostics: out, columns };
}

process.stdout.write(JSON.stringify({ ready: Object.keys(DATABASES) }) + "\n");
const lines = readline.createInterface({ input: process.stdin, terminal: false });
lines.on("line", (line) => {
  let answer;
  try {
    const request = JSON.parse(line);
    answer = check(request.text, request.database);
  } catch (error) {
    answer = { error: String(error && error.stack ? error.stack : error) };
  }
  process.stdout.write(JSON.stringify(answer) + "\n");
});
