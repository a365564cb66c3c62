/* lumo-audit-schema.c — the audit database's schema, as migrations
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Version 1: the audit table (STRICT), its time and params indexes, the
 * retention anchor and cutoff tables, the trigram index, and the triggers
 * that keep rows append-only (see lumo-audit-store.h).
 *
 * Version 2: the caller's kind and "allowed by a grant" (two columns added
 * at the end, so the migration is O(1) in the rows plus SQLite's CHECK of
 * the existing ones), the update guard again with them, and the search
 * index's watermark (audit_fts_state: the rows up to indexed_to are in
 * audit_fts; the writer indexes the rest after it has answered, see
 * lumo-audit-writer.c). Every row of version 1 was indexed in its own
 * transaction, so the watermark starts at the newest row. And
 * audit_order, the sort keys of a page by caller, tool and outcome with
 * their indexes, filled for the existing rows (the one part of this
 * migration that reads every row).
 *
 * Version 3: the time and params indexes move from audit to audit_order
 * (its time_us and params_hmac, filled for the existing rows), so an
 * append's commit writes the row's own page and no index page: the
 * catch-up writes them with the rest of audit_order, and every reader of
 * time or params reads audit_order up to the watermark and the few audit
 * rows above it (lumo-audit-query-sql.c). The two columns are added to
 * audit_order (with defaults SQLite requires and no row keeps) and filled
 * from audit in one UPDATE.
 *
 * Add versions at the end; never edit a released one.
 */
#include "config.h"

#include "lumo-audit-private.h"

const LumoMigration lumo_audit_migrations[] = {
  { 1,
    "CREATE TABLE audit ("
    "  id             INTEGER PRIMARY KEY,"
    "  time_us        INTEGER NOT NULL,"
    "  provider_id    TEXT NOT NULL,"
    "  caller_id      TEXT NOT NULL,"
    "  caller_name    TEXT NOT NULL,"
    "  tool           TEXT NOT NULL,"
    "  write          INTEGER NOT NULL CHECK (write IN (0, 1)),"
    "  target         TEXT NOT NULL,"
    "  params_hmac    BLOB NOT NULL CHECK (length (params_hmac) = 32),"
    "  decision       TEXT NOT NULL CHECK (decision IN ('allow', 'deny', 'pending-review')),"
    "  reason         TEXT NOT NULL,"
    "  hash           BLOB NOT NULL CHECK (length (hash) = 32),"
    "  result         TEXT CHECK (result IN ('ok', 'error')),"
    "  result_text    TEXT,"
    "  result_time_us INTEGER,"
    "  result_mac     BLOB"
    ") STRICT;"
    "CREATE INDEX audit_time ON audit (time_us);"
    "CREATE INDEX audit_params ON audit (params_hmac);"
    /* The hash of the last row retention deleted, MAC'd. */
    "CREATE TABLE audit_anchor ("
    "  one       INTEGER PRIMARY KEY CHECK (one = 1),"
    "  last_id   INTEGER NOT NULL,"
    "  last_hash BLOB NOT NULL,"
    "  mac       BLOB NOT NULL,"
    "  cutoff_us INTEGER NOT NULL"
    ") STRICT;"
    /* Exists only inside a retention transaction; the delete guard checks it. */
    "CREATE TABLE audit_retention_cutoff ("
    "  one       INTEGER PRIMARY KEY CHECK (one = 1),"
    "  before_us INTEGER NOT NULL,"
    "  max_id    INTEGER NOT NULL"
    ") STRICT;"
    "CREATE VIRTUAL TABLE audit_fts USING fts5 ("
    "  tool, caller_id, caller_name, target, result_text,"
    "  content = 'audit', content_rowid = 'id', tokenize = 'trigram',"
    "  detail = none, columnsize = 0);"
    /* Flush the index every 256 MiB of new terms, not every 1 MiB: fewer,
     * bigger segments and far less merging in a big import (on 1M rows it
     * halves the indexing time). Only an import ever holds that much: every
     * transaction flushes at commit. */
    "INSERT INTO audit_fts (audit_fts, rank) VALUES ('hashsize', 268435456);"
    "CREATE TRIGGER audit_update_guard BEFORE UPDATE ON audit "
    "WHEN OLD.result IS NOT NULL OR NEW.result IS NULL OR NEW.result_mac IS NULL"
    "  OR NEW.result_time_us IS NULL"
    "  OR NEW.id IS NOT OLD.id OR NEW.time_us IS NOT OLD.time_us"
    "  OR NEW.provider_id IS NOT OLD.provider_id OR NEW.caller_id IS NOT OLD.caller_id"
    "  OR NEW.caller_name IS NOT OLD.caller_name OR NEW.tool IS NOT OLD.tool"
    "  OR NEW.write IS NOT OLD.write OR NEW.target IS NOT OLD.target"
    "  OR NEW.params_hmac IS NOT OLD.params_hmac OR NEW.decision IS NOT OLD.decision"
    "  OR NEW.reason IS NOT OLD.reason OR NEW.hash IS NOT OLD.hash "
    "BEGIN SELECT RAISE (ABORT, 'audit rows are append-only: only a missing result may be filled in'); END;"
    "CREATE TRIGGER audit_delete_guard BEFORE DELETE ON audit "
    "WHEN NOT EXISTS (SELECT 1 FROM audit_retention_cutoff c"
    "                 WHERE OLD.id <= c.max_id AND OLD.time_us < c.before_us) "
    "BEGIN SELECT RAISE (ABORT, 'audit rows are deleted only by retention'); END;"
    "CREATE TRIGGER audit_anchor_guard BEFORE DELETE ON audit_anchor "
    "BEGIN SELECT RAISE (ABORT, 'the retention anchor is never deleted'); END;"
  },
  { 2,
    "ALTER TABLE audit ADD COLUMN caller_kind TEXT NOT NULL DEFAULT 'extension'"
    "  CHECK (caller_kind IN ('extension', 'agent'));"
    "ALTER TABLE audit ADD COLUMN by_grant INTEGER NOT NULL DEFAULT 0"
    "  CHECK (by_grant IN (0, 1));"
    "DROP TRIGGER audit_update_guard;"
    "CREATE TRIGGER audit_update_guard BEFORE UPDATE ON audit "
    "WHEN OLD.result IS NOT NULL OR NEW.result IS NULL OR NEW.result_mac IS NULL"
    "  OR NEW.result_time_us IS NULL"
    "  OR NEW.id IS NOT OLD.id OR NEW.time_us IS NOT OLD.time_us"
    "  OR NEW.provider_id IS NOT OLD.provider_id OR NEW.caller_id IS NOT OLD.caller_id"
    "  OR NEW.caller_name IS NOT OLD.caller_name OR NEW.tool IS NOT OLD.tool"
    "  OR NEW.write IS NOT OLD.write OR NEW.target IS NOT OLD.target"
    "  OR NEW.params_hmac IS NOT OLD.params_hmac OR NEW.decision IS NOT OLD.decision"
    "  OR NEW.reason IS NOT OLD.reason OR NEW.hash IS NOT OLD.hash"
    "  OR NEW.caller_kind IS NOT OLD.caller_kind OR NEW.by_grant IS NOT OLD.by_grant "
    "BEGIN SELECT RAISE (ABORT, 'audit rows are append-only: only a missing result may be filled in'); END;"
    "CREATE TABLE audit_fts_state ("
    "  one        INTEGER PRIMARY KEY CHECK (one = 1),"
    "  indexed_to INTEGER NOT NULL"
    ") STRICT;"
    "INSERT INTO audit_fts_state (one, indexed_to)"
    "  VALUES (1, coalesce ((SELECT max (id) FROM audit), 0));"
    /* The sort keys of a page other than id and time (LumoAuditSortKey),
     * kept beside the table rather than in indexes on it: indexes on audit
     * would add a page each to every append's commit. Written with the
     * search index, up to the same watermark; each index ends in the id,
     * which breaks ties. */
    "CREATE TABLE audit_order ("
    "  id          INTEGER PRIMARY KEY,"
    "  caller_name TEXT NOT NULL,"
    "  caller_id   TEXT NOT NULL,"
    "  tool        TEXT NOT NULL,"
    "  outcome     INTEGER NOT NULL"
    ") STRICT;"
    "CREATE INDEX audit_order_caller ON audit_order (caller_name, caller_id);"
    "CREATE INDEX audit_order_tool ON audit_order (tool);"
    "CREATE INDEX audit_order_outcome ON audit_order (outcome);"
    "INSERT INTO audit_order (id, caller_name, caller_id, tool, outcome)"
    "  SELECT id, caller_name, caller_id, tool, " LUMO_AUDIT_OUTCOME_SQL_ ("") " FROM audit;"
  },
  { 3,
    /* Added, not rebuilt: audit_order and its three indexes stay as they
     * are, only the two new columns are written (8.7–10.0 s against
     * 11.8–12.3 s for a rebuild, a million rows, docs/PERFORMANCE.md). The
     * defaults are never used: the catch-up names every column it writes. */
    "ALTER TABLE audit_order ADD COLUMN time_us INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE audit_order ADD COLUMN params_hmac BLOB NOT NULL DEFAULT x'';"
    "UPDATE audit_order SET time_us = a.time_us, params_hmac = a.params_hmac"
    "  FROM audit a WHERE a.id = audit_order.id;"
    "CREATE INDEX audit_order_time ON audit_order (time_us);"
    "CREATE INDEX audit_order_params ON audit_order (params_hmac);"
    "DROP INDEX audit_time;"
    "DROP INDEX audit_params;"
  },
};

const guint lumo_audit_n_migrations = G_N_ELEMENTS (lumo_audit_migrations);
