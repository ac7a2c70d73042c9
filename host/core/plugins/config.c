/*
 * config.c - sandbox.ini parsing (inih) and SANDBOX_* overrides.
 *
 * Keys are described by tables (section, name, type, offset, range) so that
 * the file, the environment and the tests all go through config_set().
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/log.h"
#include "core/exec/blocklist.h"

#define LOG_MODULE "config"

enum key_type { KT_U32, KT_STR, KT_LEVEL, KT_NETWORK, KT_BOOL, KT_BLOCKLIST };

struct key_desc {
	const char *name;
	enum key_type type;
	size_t offset;
	uint32_t min, max;
};

#define CFG(field) offsetof(struct config, field)
#define LIM(field) offsetof(struct sbx_limits, field)
#define LANG(field) offsetof(struct lang_config, field)
#define ENG(field) offsetof(struct engine_config, field)

static const struct key_desc server_keys[] = {
	{"log_level", KT_LEVEL, CFG(log_level), 0, 0},
	{"plugins_dir", KT_STR, CFG(plugins_dir), 0, 0},
	{"builtin_plugins", KT_BOOL, CFG(builtin_plugins), 0, 0},
	{"max_message_bytes", KT_U32, CFG(max_message_bytes), 65536,
	 256u << 20},
	{"max_inflight", KT_U32, CFG(max_inflight), 1, 1024},
	{NULL, 0, 0, 0, 0},
};

static const struct key_desc docker_keys[] = {
	{"api_timeout_ms", KT_U32, CFG(api_timeout_ms), 100, 600000},
	{"probe_interval_ms", KT_U32, CFG(probe_interval_ms), 100, 60000},
	{"probe_timeout_ms", KT_U32, CFG(probe_timeout_ms), 100, 60000},
	{"down_after", KT_U32, CFG(down_after), 1, 100},
	{NULL, 0, 0, 0, 0},
};

/* [docker] and [engine.NAME] alike. */
static const struct key_desc engine_keys[] = {
	{"host", KT_STR, ENG(host), 0, 0},
	{"tls_ca", KT_STR, ENG(tls_ca), 0, 0},
	{"tls_cert", KT_STR, ENG(tls_cert), 0, 0},
	{"tls_key", KT_STR, ENG(tls_key), 0, 0},
	{"allow_plaintext", KT_BOOL, ENG(allow_plaintext), 0, 0},
	{"weight", KT_U32, ENG(weight), 1, 1000},
	{"max_containers", KT_U32, ENG(max_containers), 1, 1024},
	{"pool_size", KT_U32, ENG(pool_size), 0, 64},
	{NULL, 0, 0, 0, 0},
};

static const struct key_desc pool_keys[] = {
	{"size", KT_U32, CFG(pool_size), 0, 64},
	{"max_size", KT_U32, CFG(pool_max_size), 0, 64},
	{"max_uses", KT_U32, CFG(max_uses), 1, 100000},
	{"max_containers", KT_U32, CFG(max_containers), 1, 1024},
	{"idle_shrink_s", KT_U32, CFG(idle_shrink_s), 0, 86400},
	{"memory_budget_mb", KT_U32, CFG(memory_budget_mb), 0, 1u << 20},
	{"prestart", KT_BOOL, CFG(prestart), 0, 0},
	{NULL, 0, 0, 0, 0},
};

static const struct key_desc session_keys[] = {
	{"max_sessions", KT_U32, CFG(max_sessions), 0, 1024},
	{"ttl", KT_U32, CFG(session_ttl_s), 1, 30u * 86400u},
	{"max_ttl", KT_U32, CFG(session_max_ttl_s), 1, 30u * 86400u},
	{"max_lifetime", KT_U32, CFG(session_max_lifetime_s), 1, 365u * 86400u},
	{"max_queued", KT_U32, CFG(session_max_queued), 0, 64},
	{"interrupt_grace_ms", KT_U32, CFG(interrupt_grace_ms), 50, 60000},
	{"state_dir", KT_STR, CFG(state_dir), 0, 0},
	{"reconnect_grace_s", KT_U32, CFG(session_reconnect_grace_s), 1, 86400},
	{"memory_refresh_ms", KT_U32, CFG(session_memory_refresh_ms), 200,
	 3600000},
	{"max_processes", KT_U32, CFG(session_max_processes), 0, 16},
	{"process_log_bytes", KT_U32, CFG(session_process_log_bytes), 4096,
	 1u << 20},
	{NULL, 0, 0, 0, 0},
};

static const struct key_desc files_keys[] = {
	{"max_read_bytes", KT_U32, CFG(files_max_read), 1024, 16u << 20},
	{"max_write_bytes", KT_U32, CFG(files_max_write), 0, UINT32_MAX},
	{"max_staged_bytes", KT_U32, CFG(files_max_staged), 1024, 64u << 20},
	{"timeout_ms", KT_U32, CFG(files_timeout_ms), 100, 600000},
	{"host_root", KT_STR, CFG(files_host_root), 0, 0},
	{NULL, 0, 0, 0, 0},
};

static const struct key_desc task_keys[] = {
	{"threshold_ms", KT_U32, CFG(task_threshold_ms), 0, 86400000},
	{"ttl_ms", KT_U32, CFG(task_ttl_ms), 1000, 30u * 86400000u},
	{"max_ttl_ms", KT_U32, CFG(task_max_ttl_ms), 1000, 30u * 86400000u},
	{"poll_ms", KT_U32, CFG(task_poll_ms), 100, 60000},
	{"sync_ms", KT_U32, CFG(task_sync_ms), 0, 50000},
	{"max_live", KT_U32, CFG(task_max_live), 1, 1024},
	{"max_kept", KT_U32, CFG(task_max_kept), 1, 100000},
	{NULL, 0, 0, 0, 0},
};

static const struct key_desc artifact_keys[] = {
	{"images", KT_U32, CFG(art_images), 0, 64},
	{"image_max_bytes", KT_U32, CFG(art_image_bytes), 1024, 16u << 20},
	{"image_max_px", KT_U32, CFG(art_image_px), 16, 65535},
	{"image_max_pixels", KT_U32, CFG(art_image_pixels), 256, 1u << 30},
	{"keep_max_bytes", KT_U32, CFG(art_keep_bytes), 0, 64u << 20},
	{"keep_call_bytes", KT_U32, CFG(art_keep_call), 0, 256u << 20},
	{"store_max_mb", KT_U32, CFG(art_store_mb), 0, 1u << 20},
	{"keep_minutes", KT_U32, CFG(art_keep_minutes), 1, 365u * 1440u},
	{NULL, 0, 0, 0, 0},
};

static const struct key_desc snapshot_keys[] = {
	{"max_mb", KT_U32, CFG(snap_max_mb), 1, 1u << 20},
	{"total_mb", KT_U32, CFG(snap_total_mb), 0, 1u << 24},
	{"keep_days", KT_U32, CFG(snap_keep_days), 1, 3650},
	{NULL, 0, 0, 0, 0},
};

static const struct key_desc package_keys[] = {
	{"network", KT_STR, CFG(pkg_network), 0, 0},
	{"volume", KT_STR, CFG(pkg_volume), 0, 0},
	{"proxy_image", KT_STR, CFG(pkg_proxy_image), 0, 0},
	{"upstream_proxy", KT_STR, CFG(pkg_upstream_proxy), 0, 0},
	{"ca_bundle", KT_STR, CFG(pkg_ca_bundle), 0, 0},
	{"cache_max_mb", KT_U32, CFG(pkg_cache_max_mb), 1, 1u << 24},
	{"timeout_ms", KT_U32, CFG(pkg_timeout_ms), 1000, 3600000},
	{"disk_mb", KT_U32, CFG(pkg_disk_mb), 16, 1u << 20},
	{"memory_mb", KT_U32, CFG(pkg_memory_mb), 64, 1u << 20},
	{"registry_timeout_ms", KT_U32, CFG(pkg_registry_timeout_ms), 200,
	 60000},
	{"registry_retry_ms", KT_U32, CFG(pkg_registry_retry_ms), 0, 3600000},
	{NULL, 0, 0, 0, 0},
};

static const struct key_desc http_keys[] = {
	{"listen", KT_STR, CFG(http_listen), 0, 0},
	{"tls_cert", KT_STR, CFG(http_tls_cert), 0, 0},
	{"tls_key", KT_STR, CFG(http_tls_key), 0, 0},
	{"allowed_origins", KT_STR, CFG(http_allowed_origins), 0, 0},
	{"allowed_hosts", KT_STR, CFG(http_allowed_hosts), 0, 0},
	{"tokens_file", KT_STR, CFG(http_tokens_file), 0, 0},
	{"public_url", KT_STR, CFG(http_public_url), 0, 0},
	{"allow_unauthenticated", KT_BOOL, CFG(http_allow_no_auth), 0, 0},
	{"request_timeout_ms", KT_U32, CFG(http_request_timeout_ms), 100,
	 600000},
	{"max_sessions", KT_U32, CFG(http_max_sessions), 1, 100000},
	{"session_idle_s", KT_U32, CFG(http_session_idle_s), 10, 30u * 86400u},
	{"unused_session_idle_s", KT_U32, CFG(http_unused_idle_s), 1, 86400},
	{"max_stateless_inflight", KT_U32, CFG(http_max_stateless), 1, 100000},
	{"max_connections", KT_U32, CFG(http_max_connections), 1, 65536},
	{"link_ttl_s", KT_U32, CFG(http_link_ttl_s), 10, 30u * 86400u},
	{"preview_listen", KT_STR, CFG(http_preview_listen), 0, 0},
	{"preview_ttl_s", KT_U32, CFG(http_preview_ttl_s), 10, 7u * 86400u},
	{"heartbeat_ms", KT_U32, CFG(http_heartbeat_ms), 100, 600000},
	{"quota_concurrent", KT_U32, CFG(quota_concurrent), 0, 100000},
	{"quota_sessions", KT_U32, CFG(quota_sessions), 0, 100000},
	{"quota_per_minute", KT_U32, CFG(quota_per_minute), 0, 1000000},
	{"quota_artifact_mb", KT_U32, CFG(quota_artifact_mb), 0, 1u << 20},
	{"quota_http_sessions", KT_U32, CFG(quota_http_sessions), 0, 100000},
	{NULL, 0, 0, 0, 0},
};

static const struct key_desc audit_keys[] = {
	{"file", KT_STR, CFG(audit_file), 0, 0},
	{"max_kb", KT_U32, CFG(audit_max_kb), 16, 1u << 20},
	{"keep", KT_U32, CFG(audit_keep), 1, 1000},
	{"store_code", KT_BOOL, CFG(audit_store_code), 0, 0},
	{NULL, 0, 0, 0, 0},
};

static const struct key_desc limit_keys[] = {
	{"memory_mb", KT_U32, LIM(memory_mb), 16, 1u << 20},
	{"cpu_millis", KT_U32, LIM(cpu_millis), 10, 256000},
	{"pids", KT_U32, LIM(pids), 8, 1u << 20},
	{"timeout_ms", KT_U32, LIM(timeout_ms), 100, 86400000},
	{"stdout_cap", KT_U32, LIM(stdout_cap), 1024, 64u << 20},
	{"stderr_cap", KT_U32, LIM(stderr_cap), 1024, 64u << 20},
	{"nofile", KT_U32, LIM(nofile), 16, 1u << 20},
	{"fsize_mb", KT_U32, LIM(fsize_mb), 1, 1u << 20},
	{"work_mb", KT_U32, LIM(work_mb), 1, 1u << 20},
	{"tmp_mb", KT_U32, LIM(tmp_mb), 1, 1u << 20},
	{NULL, 0, 0, 0, 0},
};

static const struct key_desc limits_only_keys[] = {
	{"max_timeout_ms", KT_U32, CFG(max_timeout_ms), 100, 86400000},
	{"max_memory_mb", KT_U32, CFG(max_memory_mb), 16, 1u << 20},
	{"max_cpu_millis", KT_U32, CFG(max_cpu_millis), 10, 256000},
	{"max_pids", KT_U32, CFG(max_pids), 8, 1u << 20},
	{"max_output_cap", KT_U32, CFG(max_output_cap), 1024, 64u << 20},
	{"result_max_tokens", KT_U32, CFG(result_max_tokens), 0, 1000000},
	{"start_timeout_ms", KT_U32, CFG(start_timeout_ms), 1000, 600000},
	{"reset_timeout_ms", KT_U32, CFG(reset_timeout_ms), 1000, 600000},
	{"max_code_bytes", KT_U32, CFG(max_code_bytes), 1024, 16u << 20},
	{"shm_mb", KT_U32, CFG(shm_mb), 1, 1u << 20},
	{"network", KT_NETWORK, CFG(network), 0, 0},
	{"blocklist", KT_BLOCKLIST, CFG(blocklist_mode), 0, 0},
	{NULL, 0, 0, 0, 0},
};

static const struct key_desc lang_keys[] = {
	{"image", KT_STR, LANG(image), 0, 0},
	{"pool_size", KT_U32, LANG(pool_size), 0, 64},
	{"pool_max_size", KT_U32, LANG(pool_max_size), 0, 64},
	{"max_uses", KT_U32, LANG(max_uses), 1, 100000},
	{"max_timeout_ms", KT_U32, LANG(max_timeout_ms), 100, 86400000},
	{"start_timeout_ms", KT_U32, LANG(start_timeout_ms), 1000, 600000},
	{"reset_timeout_ms", KT_U32, LANG(reset_timeout_ms), 1000, 600000},
	{"network", KT_NETWORK, LANG(network), 0, 0},
	{"registry", KT_STR, LANG(registry), 0, 0},
	{"blocklist", KT_BLOCKLIST, LANG(blocklist_mode), 0, 0},
	{"prestart", KT_BOOL, LANG(prestart), 0, 0},
	{NULL, 0, 0, 0, 0},
};

static void engine_init(struct engine_config *e, const char *name)
{
	memset(e, 0, sizeof(*e));
	snprintf(e->name, sizeof(e->name), "%s", name);
	e->weight = 1;
	e->pool_size = -1;
}

static void engine_free(struct engine_config *e)
{
	free(e->host);
	free(e->tls_ca);
	free(e->tls_cert);
	free(e->tls_key);
	free(e->file);
}

void config_init(struct config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	engine_init(&cfg->docker, "default");
	cfg->log_level = LOG_LEVEL_INFO;
	/* 24 MiB: [files] max_staged_bytes (16 MiB) of base64 files is
	 * 21.3 MiB, and 2.6 MiB are left for code, stdin and paths. */
	cfg->max_message_bytes = 24u << 20;
	cfg->max_inflight = 64;
	cfg->builtin_plugins = 1;
	cfg->api_timeout_ms = 60000;
	cfg->probe_interval_ms = 1000;
	cfg->probe_timeout_ms = 2000;
	cfg->down_after = 2;
	cfg->pool_size = 2;
	cfg->prestart = 1;
	cfg->pool_max_size = 8;
	cfg->max_uses = 1000;
	cfg->max_containers = 32;
	cfg->idle_shrink_s = 60;
	cfg->memory_budget_mb = 1024;
	cfg->warm_at_start[0] = strdup("python");
	cfg->warm_at_start[1] = strdup("bash");
	cfg->nwarm_at_start = 2;
	cfg->max_sessions = 16;
	cfg->session_ttl_s = 1800;
	cfg->session_max_ttl_s = 86400;
	cfg->session_max_lifetime_s = 7 * 86400;
	cfg->session_max_queued = 8;
	cfg->interrupt_grace_ms = 1000;
	cfg->session_reconnect_grace_s = 60;
	cfg->session_memory_refresh_ms = 5000;
	cfg->session_max_processes = 8;
	cfg->session_process_log_bytes = 64u * 1024u;
	cfg->files_max_read = 2u << 20;
	cfg->files_max_write = 0; /* the /work size (tools.h) */
	cfg->files_max_staged = 16u << 20;
	cfg->files_timeout_ms = 10000; /* the agent's own default too */
	cfg->art_images = 8;
	/* 5 MB of base64, the Messages API's limit for one image. */
	cfg->art_image_bytes = 3750000;
	cfg->art_image_px = 8000;
	/* 64 MiB decoded at 4 bytes a pixel: a 4096 x 4096 image, a 4K
	 * screenshot twice over; a file's size says nothing of this. */
	cfg->art_image_pixels = 16u << 20;
	cfg->art_keep_bytes = 8u << 20;
	cfg->art_keep_call = 32u << 20;
	cfg->art_store_mb = 256;
	cfg->art_keep_minutes = 1440;
	cfg->snap_max_mb = 1024;
	cfg->snap_total_mb = 10240;
	cfg->snap_keep_days = 30;
	cfg->http_request_timeout_ms = 10000;
	cfg->http_max_sessions = 256;
	cfg->http_session_idle_s = 3600;
	cfg->http_unused_idle_s = 60;
	cfg->http_max_stateless = 128;
	cfg->http_max_connections = 1024;
	cfg->http_link_ttl_s = 3600;
	cfg->http_preview_ttl_s = 3600;
	cfg->http_heartbeat_ms = 15000;
	cfg->quota_concurrent = 4;
	cfg->quota_sessions = 8;
	cfg->quota_per_minute = 120;
	cfg->quota_artifact_mb = 256;
	cfg->quota_http_sessions = 32;
	cfg->limits = (struct sbx_limits){
		.memory_mb = 512,
		.cpu_millis = 1000,
		.pids = 128,
		.timeout_ms = 30000,
		/* Kept whole and readable as a resource; a result shows
		 * [limits] result_max_tokens of them (run_result.h). */
		.stdout_cap = 4u << 20,
		.stderr_cap = 4u << 20,
		.nofile = 1024,
		.fsize_mb = 0, /* the /work size (plugins.c) */
		.work_mb = 256,
		.tmp_mb = 64,
	};
	cfg->max_timeout_ms = 300000;
	cfg->max_memory_mb = 4096;
	cfg->max_cpu_millis = 4000;
	cfg->max_pids = 1024;
	cfg->max_output_cap = 8u << 20; /* what the agent captures at most */
	/* Claude Code warns above 10 000 tokens and refuses a result over
	 * MAX_MCP_OUTPUT_TOKENS (25 000). */
	cfg->result_max_tokens = 10000;
	cfg->start_timeout_ms = 60000;
	cfg->reset_timeout_ms = 15000;
	cfg->max_code_bytes = 4u << 20;
	cfg->shm_mb = 64;
	cfg->network = strdup("none");
	cfg->pkg_network = strdup("mcp-sandbox-packages");
	cfg->pkg_volume = strdup("mcp-sandbox-packages");
	cfg->pkg_proxy_image = strdup("mcp-sandbox/proxy:latest");
	/* The host's bundle: it holds the CA of a TLS-intercepting network
	 * the host trusts, which the images do not. */
	cfg->pkg_ca_bundle = strdup("/etc/ssl/certs/ca-certificates.crt");
	cfg->pkg_cache_max_mb = 4096;
	cfg->pkg_timeout_ms = 300000;
	cfg->pkg_disk_mb = 1024;
	cfg->pkg_registry_timeout_ms = 3000;
	cfg->pkg_registry_retry_ms = 30000;
	cfg->task_threshold_ms = 60000;
	cfg->task_ttl_ms = 3600000;
	cfg->task_max_ttl_ms = 86400000;
	cfg->task_poll_ms = 1000;
	cfg->task_sync_ms = 1000;
	cfg->task_max_live = 8;
	cfg->task_max_kept = 256;
	cfg->pkg_memory_mb = 1024;
	cfg->audit_max_kb = 10240;
	cfg->audit_keep = 5;
	cfg->blocklist_mode = BLOCKLIST_WARN;
}

static void lang_free(struct lang_config *l)
{
	size_t i;

	free(l->image);
	free(l->network);
	free(l->registry);
	free(l->file);
	for (i = 0; i < l->nblocklist; i++)
		free(l->blocklist[i]);
	for (i = 0; i < l->nseccomp_deny; i++)
		free(l->seccomp_deny[i]);
}

void config_close(struct config *cfg)
{
	size_t i;

	for (i = 0; i < cfg->nlangs; i++)
		lang_free(&cfg->langs[i]);
	free(cfg->langs);
	free(cfg->path);
	free(cfg->plugins_dir);
	engine_free(&cfg->docker);
	for (i = 0; i < cfg->nengines; i++)
		engine_free(&cfg->engines[i]);
	free(cfg->state_dir);
	free(cfg->audit_file);
	free(cfg->http_listen);
	free(cfg->http_tls_cert);
	free(cfg->http_tls_key);
	free(cfg->http_allowed_origins);
	free(cfg->http_allowed_hosts);
	free(cfg->http_tokens_file);
	free(cfg->http_public_url);
	free(cfg->http_preview_listen);
	free(cfg->files_host_root);
	free(cfg->network);
	free(cfg->pkg_network);
	free(cfg->pkg_volume);
	free(cfg->pkg_proxy_image);
	free(cfg->pkg_upstream_proxy);
	free(cfg->pkg_ca_bundle);
	for (i = 0; i < cfg->nwarm_at_start; i++)
		free(cfg->warm_at_start[i]);
	memset(cfg, 0, sizeof(*cfg));
}

const struct engine_config *config_engines(const struct config *cfg, size_t *n)
{
	if (cfg->nengines) {
		*n = cfg->nengines;
		return cfg->engines;
	}
	*n = 1;
	return &cfg->docker;
}

const struct lang_config *config_lang(const struct config *cfg,
				      const char *name)
{
	size_t i;

	for (i = 0; i < cfg->nlangs; i++)
		if (strcmp(cfg->langs[i].name, name) == 0)
			return &cfg->langs[i];
	return NULL;
}

int config_valid_lang_name(const char *s)
{
	size_t n = 0;

	for (; *s; s++, n++)
		if (!islower((unsigned char)*s) &&
		    !isdigit((unsigned char)*s) && *s != '-' && *s != '_')
			return 0;
	return n >= 1 && n <= 32;
}

static struct lang_config *lang_get(struct config *cfg, const char *name)
{
	struct lang_config *l = (struct lang_config *)config_lang(cfg, name),
			   *n;

	if (l)
		return l;
	n = realloc(cfg->langs, (cfg->nlangs + 1) * sizeof(*n));
	if (!n)
		return NULL;
	cfg->langs = n;
	l = &cfg->langs[cfg->nlangs++];
	memset(l, 0, sizeof(*l));
	snprintf(l->name, sizeof(l->name), "%s", name);
	l->enabled = -1;
	l->blocklist_mode = -1;
	l->prestart = -1;
	l->pool_size = -1;
	l->pool_max_size = -1;
	l->max_uses = -1;
	return l;
}

static const struct key_desc *find_key(const struct key_desc *t,
				       const char *key)
{
	for (; t->name; t++)
		if (strcmp(t->name, key) == 0)
			return t;
	return NULL;
}

static int parse_u32(const char *v, const struct key_desc *k, uint32_t *out,
		     struct error *err)
{
	unsigned long long n;
	char *end;

	while (isspace((unsigned char)*v))
		v++;
	if (!isdigit((unsigned char)*v))
		return error_set_msg(err, -EINVAL,
				     "not a non-negative integer");
	errno = 0;
	n = strtoull(v, &end, 10);
	while (isspace((unsigned char)*end))
		end++;
	if (errno || *end)
		return error_set_msg(err, -EINVAL,
				     "not a non-negative integer");
	if (n < k->min || n > k->max)
		return error_set(err, -EINVAL, "out of range: %u to %u", k->min,
				 k->max);
	*out = (uint32_t)n;
	return 0;
}

static int set_str(char **slot, const char *v)
{
	char *s = strdup(v);

	if (!s)
		return -ENOMEM;
	free(*slot);
	*slot = s;
	return 0;
}

/* Store value into the field described by k inside base. */
static int apply_key(void *base, const struct key_desc *k, const char *v,
		     struct error *err)
{
	char *p = (char *)base + k->offset;
	int lvl;

	switch (k->type) {
	case KT_U32:
		return parse_u32(v, k, (uint32_t *)(void *)p, err);
	case KT_STR:
		if (!*v)
			return error_set_msg(err, -EINVAL, "empty value");
		if (set_str((char **)(void *)p, v))
			return error_set(err, -ENOMEM, "out of memory");
		return 0;
	case KT_BOOL:
		if (!strcmp(v, "true") || !strcmp(v, "yes") || !strcmp(v, "1"))
			*(uint32_t *)(void *)p = 1;
		else if (!strcmp(v, "false") || !strcmp(v, "no") ||
			 !strcmp(v, "0"))
			*(uint32_t *)(void *)p = 0;
		else
			return error_set_msg(err, -EINVAL, "not true or false");
		return 0;
	case KT_LEVEL:
		lvl = log_level_parse(v);
		if (lvl < 0)
			return error_set_msg(err, -EINVAL,
					     "not one of debug, info, notice, "
					     "warning, error");
		*(int *)(void *)p = lvl;
		return 0;
	case KT_BLOCKLIST: {
		enum blocklist_mode m;

		if (blocklist_mode_parse(v, &m))
			return error_set_msg(err, -EINVAL,
					     "must be off, warn or block");
		*(int *)(void *)p = (int)m;
		return 0;
	}
	case KT_NETWORK:
		/* Only isolation modes are accepted from the config; joining a
		 * user network is a later, deliberate feature. */
		if (strcmp(v, "none") != 0 && strcmp(v, "bridge") != 0)
			return error_set_msg(err, -EINVAL,
					     "must be none or bridge");
		if (set_str((char **)(void *)p, v))
			return error_set(err, -ENOMEM, "out of memory");
		return 0;
	}
	return error_set_msg(err, -EINVAL, "internal: bad key type");
}

static int parse_bool(const char *v, int *out)
{
	if (!strcmp(v, "1") || !strcmp(v, "true") || !strcmp(v, "yes") ||
	    !strcmp(v, "on"))
		*out = 1;
	else if (!strcmp(v, "0") || !strcmp(v, "false") || !strcmp(v, "no") ||
		 !strcmp(v, "off"))
		*out = 0;
	else
		return -EINVAL;
	return 0;
}

/* "a, b ,c" -> list entries; replaces the list. */
static int set_name_list(char **list, size_t *n, const char *v,
			 struct error *err)
{
	char *dup = strdup(v), *tok, *save = NULL;
	size_t i;

	if (!dup)
		return error_set(err, -ENOMEM, "out of memory");
	for (i = 0; i < *n; i++)
		free(list[i]);
	*n = 0;
	for (tok = strtok_r(dup, ", \t", &save); tok;
	     tok = strtok_r(NULL, ", \t", &save)) {
		if (*n == CONFIG_MAX_LIST) {
			free(dup);
			return error_set_msg(err, -EINVAL, "too many entries");
		}
		list[(*n)++] = strdup(tok);
	}
	free(dup);
	return 0;
}

static int lang_set(struct lang_config *l, const char *key, const char *v,
		    struct error *err)
{
	const struct key_desc *k;
	regex_t re;

	if ((k = find_key(limit_keys, key)))
		return apply_key(&l->limits, k, v, err);
	if ((k = find_key(lang_keys, key))) {
		uint32_t u = 0;
		int rc;

		/* The pool keys are ints with "unset" = -1 */
		if (k->offset == LANG(pool_size) ||
		    k->offset == LANG(pool_max_size) ||
		    k->offset == LANG(max_uses)) {
			rc = parse_u32(v, k, &u, err);
			if (!rc)
				*(int *)(void *)((char *)l + k->offset) =
					(int)u;
			return rc;
		}
		return apply_key(l, k, v, err);
	}
	if (strcmp(key, "enabled") == 0) {
		if (parse_bool(v, &l->enabled))
			return error_set_msg(err, -EINVAL,
					     "not a boolean (true/false)");
		return 0;
	}
	if (strcmp(key, "block") == 0) {
		/* Repeatable: each line adds one pattern to the plugin's;
		 * "block =" with an empty value drops the plugin's and the
		 * ones before it. */
		if (!*v) {
			for (size_t i = 0; i < l->nblocklist; i++)
				free(l->blocklist[i]);
			l->nblocklist = 0;
			l->block_clear = 1;
			return 0;
		}
		if (regcomp(&re, v, REG_EXTENDED | REG_NEWLINE) != 0)
			return error_set_msg(err, -EINVAL,
					     "not a valid POSIX extended "
					     "regular expression");
		regfree(&re);
		if (l->nblocklist == CONFIG_MAX_LIST)
			return error_set_msg(err, -EINVAL,
					     "too many block patterns");
		l->blocklist[l->nblocklist++] = strdup(v);
		return 0;
	}
	if (strcmp(key, "seccomp_deny") == 0) {
		l->has_seccomp_deny = 1;
		return set_name_list(l->seccomp_deny, &l->nseccomp_deny, v,
				     err);
	}
	return error_set_msg(err, -ENOENT, "unknown key");
}

/* The [engine.NAME] section, made on first sight; NULL with err. */
static struct engine_config *engine_get(struct config *cfg, const char *name,
					struct error *err)
{
	size_t i;

	if (!config_valid_lang_name(name)) {
		error_set_msg(err, -ENOENT,
			      "bad engine name (want [engine.NAME], NAME "
			      "[a-z0-9_-]{1,32})");
		return NULL;
	}
	for (i = 0; i < cfg->nengines; i++)
		if (strcmp(cfg->engines[i].name, name) == 0)
			return &cfg->engines[i];
	if (cfg->nengines == CONFIG_MAX_ENGINES) {
		error_set_msg(err, -ENOENT, "too many engine sections");
		return NULL;
	}
	engine_init(&cfg->engines[cfg->nengines], name);
	return &cfg->engines[cfg->nengines++];
}

static int engine_set(struct engine_config *e, const char *key, const char *v,
		      struct error *err)
{
	const struct key_desc *k = find_key(engine_keys, key);
	uint32_t u = 0;
	int rc;

	if (!k)
		return error_set_msg(err, -ENOENT, "unknown key");
	if (k->offset == ENG(pool_size)) { /* an int, -1 unset */
		rc = parse_u32(v, k, &u, err);
		if (!rc)
			e->pool_size = (int)u;
		return rc;
	}
	return apply_key(e, k, v, err);
}

/* [pool] warm_at_start: language names or "*"; empty warms none. */
static int set_warm_at_start(struct config *cfg, const char *v,
			     struct error *err)
{
	char *dup = strdup(v), *tok, *save = NULL;
	size_t n = 0;

	if (!dup)
		return error_set(err, -ENOMEM, "out of memory");
	for (tok = strtok_r(dup, ", \t", &save); tok;
	     tok = strtok_r(NULL, ", \t", &save), n++)
		if (n == CONFIG_MAX_LIST ||
		    (strcmp(tok, "*") != 0 && !config_valid_lang_name(tok))) {
			free(dup);
			return error_set_msg(
				err, -EINVAL,
				n == CONFIG_MAX_LIST
					? "too many entries"
					: "not a list of language names or *");
		}
	free(dup);
	return set_name_list(cfg->warm_at_start, &cfg->nwarm_at_start, v, err);
}

int config_set(struct config *cfg, const char *section, const char *key,
	       const char *value, struct error *err)
{
	const struct key_desc *t = NULL, *k;
	struct lang_config *l;

	if (strcmp(section, "server") == 0)
		t = server_keys;
	else if (strcmp(section, "docker") == 0) {
		if (!find_key(docker_keys, key))
			return engine_set(&cfg->docker, key, value, err);
		t = docker_keys;
	} else if (strncmp(section, "engine.", 7) == 0) {
		struct engine_config *e = engine_get(cfg, section + 7, err);

		return e ? engine_set(e, key, value, err) : -ENOENT;
	} else if (strcmp(section, "pool") == 0) {
		if (strcmp(key, "warm_at_start") == 0)
			return set_warm_at_start(cfg, value, err);
		t = pool_keys;
	} else if (strcmp(section, "sessions") == 0)
		t = session_keys;
	else if (strcmp(section, "files") == 0)
		t = files_keys;
	else if (strcmp(section, "artifacts") == 0)
		t = artifact_keys;
	else if (strcmp(section, "snapshots") == 0)
		t = snapshot_keys;
	else if (strcmp(section, "audit") == 0)
		t = audit_keys;
	else if (strcmp(section, "tasks") == 0)
		t = task_keys;
	else if (strcmp(section, "http") == 0)
		t = http_keys;
	else if (strcmp(section, "packages") == 0) {
		if (strcmp(key, "ca_bundle") == 0)
			cfg->pkg_ca_bundle_set = 1;
		t = package_keys;
	} else if (strcmp(section, "limits") == 0) {
		if ((k = find_key(limit_keys, key)))
			return apply_key(&cfg->limits, k, value, err);
		t = limits_only_keys;
	}
	if (t) {
		k = find_key(t, key);
		if (!k)
			return error_set_msg(err, -ENOENT, "unknown key");
		return apply_key(cfg, k, value, err);
	}
	if (!config_valid_lang_name(section))
		return error_set_msg(err, -ENOENT,
				     "unknown section (language names are "
				     "[a-z0-9_-]{1,32})");
	l = lang_get(cfg, section);
	if (!l)
		return error_set_msg(err, -ENOMEM, "out of memory");
	return lang_set(l, key, value, err);
}

/* Debian's libinih is built without INI_HANDLER_LINENO, so lines are
 * counted by our own reader: the handler runs right after the line that
 * produced it was read. */
struct parse_ctx {
	struct config *cfg;
	const char *path;
	FILE *f;
	int line;
};

static char *read_counted(char *buf, int size, void *stream)
{
	struct parse_ctx *ctx = stream;
	char *r = fgets(buf, size, ctx->f);

	if (r)
		ctx->line++;
	return r;
}

static int ini_cb(void *user, const char *section, const char *name,
		  const char *value)
{
	struct parse_ctx *ctx = user;
	int lineno = ctx->line;
	struct error err;
	int rc;

	if (!name) /* a section header (INI_CALL_HANDLER_ON_NEW_SECTION) */
		return 1;
	if (!*section) {
		log_error("%s:%d: key '%s' outside any section", ctx->path,
			  lineno, name);
		ctx->cfg->problems++;
		return 1;
	}
	rc = config_set(ctx->cfg, section, name, value, &err);
	if (rc) {
		if (rc == -ENOENT)
			log_warn("%s:%d: [%s] %s: %s (ignored)", ctx->path,
				 lineno, section, name, err.msg);
		else
			log_error("%s:%d: [%s] %s = '%s': %s (default kept)",
				  ctx->path, lineno, section, name, value,
				  err.msg);
		ctx->cfg->problems++;
	} else {
		struct lang_config *l =
			(struct lang_config *)config_lang(ctx->cfg, section);
		struct engine_config *e =
			strncmp(section, "engine.", 7) == 0
				? engine_get(ctx->cfg, section + 7, NULL)
				: NULL;

		if (l && !l->file) {
			l->file = strdup(ctx->path);
			l->line = lineno;
		}
		if (e && !e->file) {
			e->file = strdup(ctx->path);
			e->line = lineno;
		}
	}
	return 1; /* keep going: report every problem, not just the first */
}

int config_load(struct config *cfg, const char *path)
{
	struct parse_ctx ctx = {cfg, path, NULL, 0};
	int rc;

	ctx.f = fopen(path, "r");
	if (!ctx.f)
		return -errno;
	rc = ini_parse_stream(read_counted, &ctx, ini_cb, &ctx);
	fclose(ctx.f);
	if (rc > 0) {
		log_error("%s:%d: syntax error (line ignored)", path, rc);
		cfg->problems++;
	}
	set_str(&cfg->path, path);
	return 0;
}

static int section_matches(const char *env_rest, const char *section,
			   const char **key_out)
{
	size_t i;

	for (i = 0; section[i]; i++) {
		char c = section[i] == '-'
				 ? '_'
				 : (char)toupper((unsigned char)section[i]);

		if (env_rest[i] != c)
			return 0;
	}
	if (env_rest[i] != '_' || !env_rest[i + 1])
		return 0;
	*key_out = env_rest + i + 1;
	return 1;
}

void config_apply_env(struct config *cfg, char **envp, const char *const *langs,
		      size_t nlangs)
{
	static const char *const fixed[] = {
		"server",   "docker", "pool",	   "limits",
		"sessions", "files",  "artifacts", "packages",
		"audit",    "http",   "tasks",	   "snapshots"};
#define NFIXED (sizeof(fixed) / sizeof(fixed[0]))
	char name[128], key[96];
	const char *section, *k, *eq;
	struct error err;
	size_t i, j, best_len;
	char(*own)[33];
	char **e;

	/* config_set() may grow cfg->langs, where some of the names may point:
	 * work on copies. */
	own = calloc(nlangs + 1, sizeof(*own));
	if (!own)
		return;
	for (i = 0; i < nlangs; i++)
		snprintf(own[i], sizeof(own[i]), "%s", langs[i]);

	for (e = envp; e && *e; e++) {
		if (strncmp(*e, "SANDBOX_", 8) != 0)
			continue;
		eq = strchr(*e, '=');
		if (!eq || (size_t)(eq - *e) >= sizeof(name))
			continue;
		memcpy(name, *e, (size_t)(eq - *e));
		name[eq - *e] = '\0';
		if (strcmp(name, "SANDBOX_CONFIG") == 0)
			continue;
		/* The longest matching section wins: SANDBOX_PYTHON_ML_X is
		 * [python-ml] x rather than [python] ml_x. */
		section = NULL;
		k = NULL;
		best_len = 0;
		for (i = 0; i < NFIXED + nlangs; i++) {
			const char *s = i < NFIXED ? fixed[i] : own[i - NFIXED];
			const char *kk;

			if (section_matches(name + 8, s, &kk) &&
			    strlen(s) > best_len) {
				section = s;
				k = kk;
				best_len = strlen(s);
			}
		}
		if (!section) {
			log_warn("environment: %s matches no section (ignored)",
				 name);
			cfg->problems++;
			continue;
		}
		for (j = 0; k[j] && j + 1 < sizeof(key); j++)
			key[j] = (char)tolower((unsigned char)k[j]);
		key[j] = '\0';
		if (config_set(cfg, section, key, eq + 1, &err)) {
			log_error("environment: %s='%s': %s", name, eq + 1,
				  err.msg);
			cfg->problems++;
		}
	}
	free(own);
}
