#!/usr/bin/env node
/*
 * The Cosmos-protocol test peer: @vercel/cosmosdb-server@1.0.1 with the shims our
 * contract suite needs (see /work/shared/facts/cosmos-peer.md §7 for the bugs).
 *
 *   node tests/peer/cosmos-peer.js --port 8081 [--host 127.0.0.1] [--no-ssl] [--log]
 *
 * Prints "cosmos-peer listening on https://HOST:PORT" once the port accepts
 * connections. Everything is patched in memory; node_modules is never edited.
 *
 * Shims, each one a behaviour of the real service the stock package gets wrong:
 *   1. keep-alive: the stock CLI answers `connection: close`, which makes every
 *      HTTPS request pay a TLS handshake (~45 ms instead of ~2 ms).
 *   2. a point read of a missing item is 404 NotFound (stock: 500 TypeError).
 *   3. a query sent with a full partition key (x-ms-documentdb-partitionkey) is
 *      scoped to that logical partition (stock: the header is ignored).
 *   4. hierarchical (MultiHash) keys: items are keyed by every key component
 *      (stock: the first only, so same-id items of one tenant overwrite each other).
 *   5. TTL: items expire `ttl` (or the container's defaultTtl) seconds after
 *      `_ts`, with the service's rules (defaultTtl absent = off, -1 = never);
 *      expired items vanish from reads, queries and writes (stock: TTL ignored).
 *   6. ORDER BY on one property returns items where it is undefined, first in
 *      ascending order, as Cosmos DB does since 2022 (stock: drops them), and a
 *      page boundary on such an item resumes correctly.
 *   7. a query the engine cannot run (DISTINCT, GROUP BY, OFFSET/LIMIT, a subquery in
 *      FROM) is refused with 400 at once, as the engine would refuse it — but without
 *      its failing parse, which takes seconds on a long query.
 *   8. a container read asking for statistics (x-ms-documentdb-populatepartitionstatistics)
 *      answers them in the body — per partition key range its size, document count and
 *      largest keys — and one asking for quota info (x-ms-documentdb-populatequotainfo)
 *      gets the x-ms-resource-usage header (stock: both ignored). Sizes are the items'
 *      JSON lengths: the shapes are the service's, the numbers only plausible.
 *   9. CONTAINS, STARTSWITH and ENDSWITH take the service's third argument, true to
 *      ignore case (stock: exactly two arguments, a third is a syntax error). Case is
 *      folded with toLowerCase, which agrees with the service outside a few letters
 *      whose folding is not one-to-one (ß).
 *  10. latest-version change feed (A-IM: Incremental Feed): every write gets the
 *      collection's next sequence number; a read answers the items written after the
 *      If-None-Match etag (none: from the beginning; "*": now; If-Modified-Since: at
 *      that time) in write order, at most x-ms-max-item-count, each with its number
 *      as `_lsn` and the last one's as the etag, or 304 with the etag unchanged when
 *      nothing is new (stock: every read with an etag is 304 and the etag is always
 *      "1"). An item appears
 *      once, at its latest version; deletes and expiries are not in it, as on the
 *      service. The all-versions-and-deletes mode (A-IM: Full-Fidelity Feed) is
 *      refused with 400, as on an account without it.
 *
 * Known and left as is (the console never relies on them): DISTINCT, GROUP BY and
 * OFFSET/LIMIT are rejected by the query engine (400); prefix hierarchical-key
 * queries arrive as an effective-partition-key range the peer cannot hash, so they
 * are answered unscoped and the WHERE clause must filter (ours always does);
 * the change feed is not partition-scoped (the SDK scopes it by an effective
 * partition key range the peer cannot hash: the store drops what is outside the
 * scope, so only the cost is the container's); the request charge is always 1; no auth.
 *
 * Recall probes (vector and full-text search) are refused, not shimmed: the engine
 * cannot ORDER BY a function ("Unsupported ORDER BY clause. ORDER BY item expression
 * could not be mapped to a document path") and does not parse ORDER BY RANK, so every
 * VectorDistance / FullTextScore / RRF probe gets a 400. The container keeps its
 * vectorEmbeddingPolicy, but nothing uses it. The store turns the 400 into one line
 * (``RecallRefused``, sources/cosmos/recall.py) and the tests assert exactly that
 * for this backend (tests/sources/cosmos/test_recall_peer.py); the probes' answers
 * are tested on the fake gateway (tests/fake_cosmos), which implements them.
 */
"use strict";

const path = require("path");

const PKG = path.join(__dirname, "node_modules", "@vercel", "cosmosdb-server", "lib");
const QUERY_PKG = path.join(__dirname, "node_modules", "@zeit", "cosmosdb-query", "lib");
const load = (dir, name) => require(path.join(dir, name));

function parseArgs(argv) {
  const args = { port: 8081, host: "127.0.0.1", ssl: true, log: false };
  for (let i = 0; i < argv.length; i += 1) {
    const key = argv[i];
    if (key === "--port" || key === "-p") args.port = parseInt(argv[(i += 1)], 10);
    else if (key === "--host") args.host = argv[(i += 1)];
    else if (key === "--no-ssl") args.ssl = false;
    else if (key === "--log") args.log = true;
    else if (key === "--keep-alive") args.keepAlive = true; // always on; accepted for habit
    else throw new Error(`unknown argument ${key}`);
  }
  return args;
}

// -- partition keys (shim 4) -------------------------------------------------------

const pkHeader = "x-ms-documentdb-partitionkey";

function getValue(doc, keys) {
  let node = doc;
  for (const key of keys) {
    if (node === null || typeof node !== "object") return undefined;
    node = node[key];
  }
  return node;
}

// The SDK sends `{}` for an undefined key component; store it the same way.
function canonicalKey(values) {
  return JSON.stringify(values.map(v => (v === undefined ? {} : v)));
}

function keyPaths(collection) {
  const data = collection && collection.read ? collection.read() : collection;
  const paths = ((data || {}).partitionKey || {}).paths || ["/id"];
  return paths.map(p => p.slice(1).split("/"));
}

function headerKey(req) {
  const raw = req.headers[pkHeader];
  const value = Array.isArray(raw) ? raw[0] : raw;
  if (!value || value === "[{}]" || value === "[]") return null;
  const parsed = JSON.parse(value);
  return Array.isArray(parsed) ? parsed : [parsed];
}

// -- TTL (shim 5) --------------------------------------------------------------------

// The service accepts -1 and 1..2147483647 (Int32 max); anything else is as if absent.
function validItemTtl(ttl) {
  return Number.isInteger(ttl) && (ttl === -1 || (ttl >= 1 && ttl <= 2147483647));
}

function expiresAt(doc, defaultTtl) {
  if (defaultTtl === undefined || defaultTtl === null) return Infinity; // TTL off
  const effective = validItemTtl(doc.ttl) ? doc.ttl : defaultTtl;
  return effective === -1 ? Infinity : doc._ts + effective;
}

function patchDocuments() {
  const Documents = load(PKG, "account/documents").default;
  const proto = Documents.prototype;

  proto._getPartition = function getPartition(data) {
    return canonicalKey(keyPaths(this._parent).map(keys => getValue(data, keys)));
  };

  // Purging is O(items), so it only runs when the earliest known expiry has passed.
  proto._purgeExpired = function purgeExpired() {
    const collection = this._parent.read();
    if (!collection || this._purging) return;
    const now = Date.now() / 1000;
    const defaultTtl = collection.defaultTtl;
    if (this._ttlSeen === defaultTtl && now < (this._nextExpiry ?? 0)) return;
    this._purging = true;
    try {
      let next = Infinity;
      for (const item of [...this._data.values()]) {
        const doc = item.read();
        const at = expiresAt(doc, defaultTtl);
        if (now >= at) this.delete(doc.id, this._getPartition(doc));
        else next = Math.min(next, at);
      }
      this._nextExpiry = next;
      this._ttlSeen = defaultTtl;
    } finally {
      this._purging = false;
    }
  };

  // Items by logical partition, so a partition-scoped query reads only its own items.
  const feedLsn = items => items._feedLsn || (items._feedLsn = new Map());
  const byKey = items => items._byKey || (items._byKey = new Map());
  const set = proto._set;
  proto._set = function setAndTrack(data) {
    const collection = this._parent.read();
    if (collection && this._nextExpiry !== undefined) {
      this._nextExpiry = Math.min(this._nextExpiry, expiresAt(data, collection.defaultTtl));
    }
    // Shim 10: the write's place in the collection's change feed.
    this._feedSeq = (this._feedSeq || 0) + 1;
    feedLsn(this).set(data._rid, this._feedSeq);
    const key = this._getPartition(data);
    if (!byKey(this).has(key)) byKey(this).set(key, new Set());
    byKey(this).get(key).add(data._rid);
    return set.call(this, data);
  };
  const remove = proto.delete;
  proto.delete = function deleteAndUntrack(idOrRid, partition) {
    const doc = this._item("/id", idOrRid, partition).read();
    const result = remove.call(this, idOrRid, partition);
    if (doc) {
      feedLsn(this).delete(doc._rid);
      const rids = byKey(this).get(this._getPartition(doc));
      if (rids) rids.delete(doc._rid);
    }
    return result;
  };

  for (const name of ["_item", "query", "read"]) {
    const original = proto[name];
    proto[name] = function purgingFirst(...args) {
      this._purgeExpired();
      return original.apply(this, args);
    };
  }

  // Shim 3: run the query over one logical partition when a full key is given.
  proto.queryPartition = function queryPartition(params, options, key) {
    if (!this._parent.read()) return null;
    this._purgeExpired();
    const data = [];
    for (const rid of byKey(this).get(key) || []) {
      const item = this._data.get(rid);
      if (item) data.push(item.read());
    }
    const udf = this._userDefinedFunctions();
    const q = this._getQuery(params.query);
    try {
      return q.exec(data, { parameters: params.parameters, udf, ...options });
    } catch (err) {
      err.badRequest = true;
      throw err;
    }
  };
}

// -- handlers (shims 2 and 3) --------------------------------------------------------

// Shim 7: what @zeit/cosmosdb-query cannot parse, refused before it tries.
const UNSUPPORTED = /\bDISTINCT\b|\bGROUP\s+BY\b|\bOFFSET\s+\S+\s+LIMIT\b|\bFROM\s*\(/i;

function patchHandlers() {
  const headerUtils = load(PKG, "utils/get-partition-from-header");
  // Every document lookup keys on the canonical full key, like _getPartition above.
  headerUtils.parsePartitionKey = (header, fallback) => {
    if (!header) return fallback;
    const parsed = JSON.parse(header);
    return canonicalKey(Array.isArray(parsed) ? parsed : [parsed]);
  };

  const notFound = {
    code: "NotFound",
    message: "Entity with the specified id does not exist in the system.,"
  };
  load(PKG, "handler/read-document").default = (account, req, res, { dbId, collId, docId }) => {
    const collection = account.database(dbId).collection(collId);
    const key = headerKey(req);
    if (!collection.read() || key === null) {
      res.statusCode = collection.read() ? 400 : 404;
      return collection.read()
        ? { code: "BadRequest", message: "a point read needs the full partition key" }
        : notFound;
    }
    if (key.length !== keyPaths(collection).length) {
      res.statusCode = 400;
      return {
        code: "BadRequest",
        message:
          "The partition key supplied in x-ms-partitionkey header has fewer components than defined in the collection"
      };
    }
    const doc = collection.document(docId, canonicalKey(key)).read();
    if (!doc) {
      res.statusCode = 404;
      return notFound;
    }
    return doc;
  };

  const readItems = load(PKG, "handler/_read-items").default;
  const json = load(PKG, "json").default;
  const trueHeader = load(PKG, "true-header").default;
  const cosmosQuery = require(path.join(QUERY_PKG, "index.js")).default;
  load(PKG, "handler/query-documents").default = (account, req, res, { dbId, collId }) =>
    readItems(req, res, "Documents", async ({ continuation, maxItemCount }) => {
      const body = await json(req);
      if (!body.query) {
        res.statusCode = 400;
        return { message: "missing query" };
      }
      if (UNSUPPORTED.test(body.query)) {
        res.statusCode = 400;
        return { code: "BadRequest", message: "the peer's query engine has no DISTINCT, GROUP BY, OFFSET/LIMIT or subqueries" };
      }
      const collection = account.database(dbId).collection(collId);
      if (!collection.read()) return null;
      const key = headerKey(req);
      const paths = keyPaths(collection);
      const full = key !== null && key.length === paths.length;
      // The SDK routes prefix-key and fan-out queries to a partition key range by id;
      // only a query with no routing at all must name the key in its WHERE clause.
      const routed =
        full ||
        req.headers["x-ms-documentdb-partitionkeyrangeid"] !== undefined ||
        trueHeader(req, "x-ms-documentdb-query-enablecrosspartition");
      if (!routed) {
        const names = paths.map(p => `/${p.join("/")}`);
        if (!cosmosQuery(body.query).containsPartitionKeys(names)) {
          res.statusCode = 400;
          return { message: "missing partition keys" };
        }
      }
      try {
        const options = { continuation, maxItemCount };
        return full
          ? collection.documents.queryPartition(body, options, canonicalKey(key))
          : collection.documents.query(body, options);
      } catch (err) {
        if (err.badRequest) {
          res.statusCode = 400;
          return { code: "BadRequest", message: err.message };
        }
        throw err;
      }
    });
}

// -- latest-version change feed (shim 10) ------------------------------------------------

const FULL_FIDELITY = "full-fidelity feed";

function changesSince(documents, since, modifiedSince) {
  documents._purgeExpired();
  const out = [];
  for (const [rid, lsn] of (documents._feedLsn || new Map()).entries()) {
    if (lsn <= since) continue;
    const item = documents._data.get(rid);
    const doc = item && item.read();
    if (!doc || (modifiedSince !== null && doc._ts < modifiedSince)) continue;
    out.push([lsn, doc]);
  }
  return out.sort((a, b) => a[0] - b[0]);
}

function patchChangeFeed() {
  const readDocuments = load(PKG, "handler/read-documents");
  const original = readDocuments.default;
  readDocuments.default = (account, req, res, params) => {
    const aim = String(req.headers["a-im"] || "").toLowerCase();
    if (!aim) return original(account, req, res, params);
    // The stock post-processing turns any A-IM answer with an etag into a 304.
    delete req.headers["a-im"];
    if (aim === FULL_FIDELITY) {
      res.statusCode = 400;
      return {
        code: "BadRequest",
        message: "The all versions and deletes change feed mode is not enabled for this account."
      };
    }
    const collection = account.database(params.dbId).collection(params.collId);
    if (!collection.read()) {
      res.statusCode = 404;
      return {};
    }
    const documents = collection.documents;
    const head = documents._feedSeq || 0;
    const match = String(req.headers["if-none-match"] || "").replace(/"/g, "");
    if (match === "*") {
      res.statusCode = 304;
      res.setHeader("etag", `"${head}"`);
      return null;
    }
    const since = match === "" ? 0 : parseInt(match, 10);
    if (!Number.isFinite(since)) {
      res.statusCode = 400;
      return { code: "BadRequest", message: `malformed change feed etag ${match}` };
    }
    const raw = req.headers["if-modified-since"];
    const modifiedSince = raw ? Date.parse(raw) / 1000 : null;
    const limit = parseInt(req.headers["x-ms-max-item-count"] || "100", 10);
    const found = changesSince(documents, since, modifiedSince);
    const page = found.slice(0, limit > 0 ? limit : found.length);
    if (page.length === 0) {
      res.statusCode = 304;
      res.setHeader("etag", `"${since}"`);
      return null;
    }
    res.setHeader("etag", `"${page[page.length - 1][0]}"`);
    res.setHeader("x-ms-item-count", String(page.length));
    return { _rid: collection.read()._rid, Documents: page.map(([lsn, doc]) => ({ ...doc, _lsn: lsn })), _count: page.length };
  };
}

// -- storage statistics of a container read (shim 8) ------------------------------------

const STATS_HEADER = "x-ms-documentdb-populatepartitionstatistics";
const QUOTA_HEADER = "x-ms-documentdb-populatequotainfo";
const TOP_KEYS = 3; // the service reports the three largest keys of a range …
const KEY_SHARE = 0.01; // … that hold at least 1 % of its documents

const asked = (req, name) => String(req.headers[name] || "").toLowerCase() === "true";

function storage(collection) {
  const documents = collection.documents;
  documents._purgeExpired();
  const keys = new Map();
  let bytes = 0;
  let count = 0;
  for (const item of documents._data.values()) {
    const doc = item.read();
    if (!doc) continue;
    const size = Buffer.byteLength(JSON.stringify(doc));
    const key = documents._getPartition(doc);
    const entry = keys.get(key) || { bytes: 0, count: 0 };
    entry.bytes += size;
    entry.count += 1;
    keys.set(key, entry);
    bytes += size;
    count += 1;
  }
  return { keys, bytes, count };
}

function patchContainerRead() {
  const kb = n => Math.ceil(n / 1024);
  load(PKG, "handler/read-collection").default = (account, req, res, { dbId, collId }) => {
    const collection = account.database(dbId).collection(collId);
    const coll = collection.read();
    if (!coll) {
      res.statusCode = 404;
      return {};
    }
    res.setHeader("x-ms-documentdb-collection-index-transformation-progress", "-1");
    const stats = asked(req, STATS_HEADER);
    if (!stats && !asked(req, QUOTA_HEADER)) return coll;
    const { keys, bytes, count } = storage(collection);
    if (asked(req, QUOTA_HEADER)) {
      res.setHeader(
        "x-ms-resource-usage",
        `functions=0;storedProcedures=0;triggers=0;documentSize=${Math.ceil(bytes / 1048576)};` +
          `documentsSize=${kb(bytes)};documentsCount=${count};collectionSize=${kb(bytes)};`
      );
      res.setHeader("x-ms-resource-quota", "functions=25;storedProcedures=100;triggers=25;" +
        "documentSize=10240;documentsSize=10485760;documentsCount=-1;collectionSize=10485760;");
    }
    if (!stats) return coll;
    const largest = [...keys.entries()]
      .filter(([, entry]) => entry.count >= count * KEY_SHARE)
      .sort((a, b) => b[1].bytes - a[1].bytes)
      .slice(0, TOP_KEYS)
      .map(([key, entry]) => ({ partitionKey: JSON.parse(key), sizeInKB: kb(entry.bytes) }));
    // One physical partition: every key lives in range "0".
    const statistics = [
      { id: "0", sizeInKB: kb(bytes), documentCount: count, partitionKeys: largest }
    ];
    return { ...coll, statistics };
  };
}

// -- ORDER BY with undefined values (shim 6) ---------------------------------------------

function patchQueryEngine() {
  // Shim 9: the generated code calls $b.NAME(...) at run time, so replacing the module's
  // export is enough. Arguments of the wrong type give undefined, as the service does.
  const builtins = require(path.join(QUERY_PKG, "builtin-functions.js"));
  const folding = test => (a, b, ignoreCase = false) => {
    if (typeof a !== "string" || typeof b !== "string") return undefined;
    if (typeof ignoreCase !== "boolean") return undefined;
    return ignoreCase ? test(a.toLowerCase(), b.toLowerCase()) : test(a, b);
  };
  builtins.CONTAINS = folding((a, b) => a.includes(b));
  builtins.STARTSWITH = folding((a, b) => a.startsWith(b));
  builtins.ENDSWITH = folding((a, b) => a.endsWith(b));
  const helpers = require(path.join(QUERY_PKG, "helpers.js"));
  const tokens = require(path.join(QUERY_PKG, "continuation-token.js"));
  const originalSort = helpers.sort;
  helpers.sort = (collection, getRid, compositeIndexes, ...orders) => {
    if (orders.length !== 1) return originalSort(collection, getRid, compositeIndexes, ...orders);
    // Sorting by a second, absent property makes the engine skip its "drop undefined"
    // step; its comparator already ranks undefined < null < bool < number < string.
    const absent = [["__cosmem_absent__"], false];
    return originalSort(collection, getRid, null, orders[0], absent);
  };
  // JSON has no undefined: keep it distinct from null inside the continuation token.
  const MARK = { __cosmemUndefined: true };
  const encode = tokens.encode;
  tokens.encode = t =>
    encode(t.RTD ? { ...t, RTD: t.RTD.map(v => (v === undefined ? MARK : v)) } : t);
  const decode = tokens.decode;
  tokens.decode = text => {
    const t = decode(text);
    if (Array.isArray(t.RTD)) {
      t.RTD = t.RTD.map(v => (v && typeof v === "object" && v.__cosmemUndefined ? undefined : v));
    }
    return t;
  };
}

// -- requests log (for debugging the suite) ---------------------------------------------

function logRequests(server) {
  server.prependListener("request", (req, res) => {
    const started = process.hrtime.bigint();
    res.on("finish", () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const pk = req.headers[pkHeader] || "";
      const plan = req.headers["x-ms-cosmos-is-query-plan-request"] ? " plan" : "";
      if (process.env.COSMOS_PEER_LOG_HEADERS) console.log(JSON.stringify(req.headers));
      console.log(`${req.method} ${req.url} ${res.statusCode} ${ms.toFixed(1)}ms pk=${pk}${plan}`);
    });
  });
}

function main() {
  const args = parseArgs(process.argv.slice(2));
  patchDocuments();
  patchHandlers();
  patchContainerRead();
  patchChangeFeed();
  patchQueryEngine();
  // Loaded only now: the router captures the handler functions when it is built.
  const server = load(PKG, "index");
  const create = args.ssl ? server.createHttpsServer : server.createHttpServer;
  const listener = create({ keepAlive: true });
  listener.keepAliveTimeout = 60_000;
  if (args.log) logRequests(listener);
  listener.listen(args.port, args.host, () => {
    const scheme = args.ssl ? "https" : "http";
    console.log(`cosmos-peer listening on ${scheme}://${args.host}:${listener.address().port}`);
  });
  const stop = () => listener.close(() => process.exit(0));
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}

main();
