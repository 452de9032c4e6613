/* SPDX-License-Identifier: MIT */
/*
 * ag_tc_parse: `tc -s -j filter show dev DEV ingress` (JSON, parsed with json-c) -> filters
 * (see ag_filter.h). Each flower key becomes an opt_rule field (IPv4 prefixes, MACs, ports,
 * tunnel keys) and its tc argument text; each action its "KIND ... index N" text.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "agent/ag_filter.h"

enum kkind { K_MAC, K_IP, K_PROTO, K_NUM, K_ETHTYPE, K_DEV };

struct keydef {
	const char *name;
	enum kkind kind;
	enum opt_field field;
};

static const struct keydef keydefs[] = {
	{ "indev", K_DEV, OPT_F_IN_PORT },      { "src_mac", K_MAC, OPT_F_ETH_SRC },
	{ "dst_mac", K_MAC, OPT_F_ETH_DST },    { "eth_type", K_ETHTYPE, OPT_F_ETH_TYPE },
	{ "src_ip", K_IP, OPT_F_IP_SRC },       { "dst_ip", K_IP, OPT_F_IP_DST },
	{ "ip_proto", K_PROTO, OPT_F_IP_PROTO }, { "src_port", K_NUM, OPT_F_L4_SRC },
	{ "dst_port", K_NUM, OPT_F_L4_DST },    { "enc_key_id", K_NUM, OPT_F_TUN_ID },
	{ "enc_src_ip", K_IP, OPT_F_TUN_SRC },  { "enc_dst_ip", K_IP, OPT_F_TUN_DST },
	{ "enc_dst_port", K_NUM, OPT_F_TUN_DPORT },
};

struct where {
	const char *dev;
	unsigned pref, handle;
	char *err;
	size_t errlen;
};

static int refuse(const struct where *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int refuse(const struct where *w, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (w->err)
		snprintf(w->err, w->errlen, "%s ingress prio %u handle %u: %s", w->dev, w->pref,
			 w->handle, msg);
	return -EINVAL;
}

static int append(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int append(char *buf, size_t len, const char *fmt, ...)
{
	size_t used = strlen(buf);
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf + used, len - used, fmt, ap);
	va_end(ap);
	return n < 0 || (size_t)n >= len - used ? -ENOSPC : 0;
}

/* FNV-1a of a device name: the in_port value of an "indev" key. */
static uint64_t name_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 0x100000001b3ULL;
	return h;
}

static int parse_ip(const char *s, uint64_t *v, uint8_t *plen)
{
	char addr[32];
	const char *slash = strchr(s, '/');
	size_t n = slash ? (size_t)(slash - s) : strlen(s);
	struct in_addr a;
	char *end;
	long l = 32;

	if (n >= sizeof(addr))
		return -EINVAL;
	memcpy(addr, s, n);
	addr[n] = '\0';
	if (inet_pton(AF_INET, addr, &a) != 1)
		return -EINVAL;
	if (slash) {
		l = strtol(slash + 1, &end, 10);
		if (*end || l < 1 || l > 32)
			return -EINVAL;
	}
	*v = ntohl(a.s_addr);
	*plen = (uint8_t)l;
	return 0;
}

static int parse_mac(const char *s, uint64_t *v)
{
	unsigned b[6];
	char tail;

	if (sscanf(s, "%2x:%2x:%2x:%2x:%2x:%2x%c", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5],
		   &tail) != 6)
		return -EINVAL;
	*v = 0;
	for (int i = 0; i < 6; i++)
		*v = *v << 8 | b[i];
	return 0;
}

static int parse_num(json_object *o, uint64_t *v)
{
	const char *s;
	char *end;

	if (json_object_is_type(o, json_type_int)) {
		int64_t i = json_object_get_int64(o);

		*v = (uint64_t)i;
		return i < 0 ? -EINVAL : 0;
	}
	s = json_object_get_string(o);
	if (!s || !*s)
		return -EINVAL;
	*v = strtoull(s, &end, 0);
	return *end ? -EINVAL : 0;
}

static int parse_proto(const char *s, uint64_t *v)
{
	static const struct { const char *n; unsigned v; } names[] = {
		{ "tcp", 6 }, { "udp", 17 }, { "icmp", 1 }, { "sctp", 132 }, { "icmpv6", 58 } };
	char *end;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(s, names[i].n)) {
			*v = names[i].v;
			return 0;
		}
	*v = strtoul(s, &end, 0);
	return *s && !*end && *v < 256 ? 0 : -EINVAL;
}

static int parse_ethtype(const char *s, uint64_t *v)
{
	char *end;

	if (!strcmp(s, "ipv4"))
		*v = 0x0800;
	else if (!strcmp(s, "ipv6"))
		*v = 0x86dd;
	else if (!strcmp(s, "arp"))
		*v = 0x0806;
	else if ((*v = strtoul(s, &end, 0)), !*s || *end || *v > 0xffff)
		return -EINVAL;
	return 0;
}

/* One key: the rule's field and, unless it is eth_type (tc's protocol carries it), its
 * argument text. */
static int parse_key(const struct where *w, const struct keydef *d, json_object *val,
		     struct ag_filter *f)
{
	const char *s = json_object_get_string(val);
	struct opt_rule *r = &f->rule;
	uint64_t v = 0;
	int rc;

	switch (d->kind) {
	case K_MAC: rc = parse_mac(s, &v); break;
	case K_IP: rc = parse_ip(s, &v, &r->mask.plen[d->field]); break;
	case K_PROTO: rc = parse_proto(s, &v); break;
	case K_NUM: rc = parse_num(val, &v); break;
	case K_ETHTYPE: rc = parse_ethtype(s, &v); break;
	default: v = name_hash(s); rc = 0; break;
	}
	if (rc < 0)
		return refuse(w, "key %s: \"%s\" is not a value the agent can model (IPv4 "
			      "address/prefix, plain MAC, single port or number)", d->name, s);
	r->mask.fields |= 1u << d->field;
	r->v[d->field] = v;
	if (d->kind == K_ETHTYPE)
		return 0;
	return append(f->match, sizeof(f->match), "%s%s %s", *f->match ? " " : "", d->name, s);
}

static int parse_keys(const struct where *w, json_object *keys, struct ag_filter *f)
{
	json_object_object_foreach(keys, name, val) {
		const struct keydef *d = NULL;

		for (size_t i = 0; !d && i < sizeof(keydefs) / sizeof(keydefs[0]); i++)
			if (!strcmp(keydefs[i].name, name))
				d = &keydefs[i];
		if (!d)
			return refuse(w, "key %s: not one the agent can move (it knows indev, "
				      "src/dst_mac, eth_type, src/dst_ip, ip_proto, src/dst_port, "
				      "enc_key_id, enc_src/dst_ip, enc_dst_port)", name);
		if (parse_key(w, d, val, f) < 0)
			return -EINVAL;
	}
	return 0;
}

static const char *jstr(json_object *o, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) ? json_object_get_string(v) : NULL;
}

/* gact's control: pass, drop, ... or "goto chain N". */
static int gact_text(json_object *a, char *buf, size_t len)
{
	json_object *ctl, *chain;
	const char *type;

	if (!json_object_object_get_ex(a, "control_action", &ctl) ||
	    !(type = jstr(ctl, "type")))
		return -EINVAL;
	if (!strcmp(type, "goto") && json_object_object_get_ex(ctl, "chain", &chain))
		return snprintf(buf, len, "gact goto chain %d", json_object_get_int(chain)) < 0;
	snprintf(buf, len, "gact %s", type);
	return 0;
}

/* The kind's arguments (ignored by the kernel when binding an existing index, but tc's
 * parser wants them, and they rebuild the same action if it ever had gone). */
static int action_text(const struct where *w, json_object *a, const char *kind, char *buf,
		       size_t len)
{
	const char *s, *d;

	if (!strcmp(kind, "gact")) {
		if (gact_text(a, buf, len) == 0)
			return 0;
	} else if (!strcmp(kind, "mirred")) {
		if ((s = jstr(a, "direction")) && (d = jstr(a, "to_dev")) && jstr(a, "mirred_action")) {
			snprintf(buf, len, "mirred %s %s dev %s", s, jstr(a, "mirred_action"), d);
			return 0;
		}
	} else if (!strcmp(kind, "tunnel_key") && (s = jstr(a, "mode"))) {
		if (!strcmp(s, "unset")) {
			snprintf(buf, len, "tunnel_key unset");
			return 0;
		}
		if (!strcmp(s, "set") && jstr(a, "src_ip") && jstr(a, "dst_ip")) {
			snprintf(buf, len, "tunnel_key set src_ip %s dst_ip %s", jstr(a, "src_ip"),
				 jstr(a, "dst_ip"));
			return 0;
		}
	}
	return refuse(w, "action %s: not one the agent can re-bind (it knows gact, mirred, "
		      "tunnel_key)", kind);
}

static int parse_actions(const struct where *w, json_object *acts, struct ag_filter *f)
{
	size_t n = json_object_is_type(acts, json_type_array) ? json_object_array_length(acts) : 0;

	if (n == 0)
		return refuse(w, "no actions");
	for (size_t i = 0; i < n; i++) {
		json_object *a = json_object_array_get_idx(acts, i), *idx, *st, *pk;
		const char *kind = jstr(a, "kind");
		char text[256];

		if (!kind || !json_object_object_get_ex(a, "index", &idx))
			return refuse(w, "action %zu has no kind or index", i + 1);
		if (action_text(w, a, kind, text, sizeof(text)) < 0)
			return -EINVAL;
		if (append(f->actions, sizeof(f->actions), "%saction %s index %d",
			   i ? " " : "", text, json_object_get_int(idx)) < 0 ||
		    append(f->action_id, sizeof(f->action_id), "%s%s/%d", i ? " " : "", kind,
			   json_object_get_int(idx)) < 0)
			return refuse(w, "actions too long");
		if (i == 0 && json_object_object_get_ex(a, "stats", &st) &&
		    json_object_object_get_ex(st, "packets", &pk))
			f->packets = (uint64_t)json_object_get_int64(pk);
	}
	return 0;
}

static int parse_options(const struct where *w, json_object *opt, struct ag_filter *f)
{
	static const char *const ignored[] = { "handle", "keys", "actions", "not_in_hw",
					       "in_hw", "in_hw_count", NULL };

	json_object_object_foreach(opt, name, val) {
		bool known = false;

		for (size_t i = 0; !known && ignored[i]; i++)
			known = !strcmp(name, ignored[i]);
		if (known)
			continue;
		if ((!strcmp(name, "skip_hw") || !strcmp(name, "skip_sw")) &&
		    json_object_get_boolean(val)) {
			if (append(f->match, sizeof(f->match), "%s%s", *f->match ? " " : "", name))
				return refuse(w, "match too long");
			continue;
		}
		return refuse(w, "option %s: not one the agent can move", name);
	}
	return 0;
}

static int parse_filter(json_object *e, const char *dev, struct ag_filter *f, char *err,
			size_t errlen)
{
	json_object *opt, *v;
	struct where w = { dev, 0, 0, err, errlen };
	const char *kind = jstr(e, "kind"), *proto = jstr(e, "protocol");

	memset(f, 0, sizeof(*f));
	if (json_object_object_get_ex(e, "pref", &v))
		w.pref = (unsigned)json_object_get_int(v);
	json_object_object_get_ex(e, "options", &opt);
	if (opt && json_object_object_get_ex(opt, "handle", &v))
		w.handle = (unsigned)json_object_get_int64(v);
	if (!kind || strcmp(kind, "flower"))
		return refuse(&w, "classifier %s: the agent manages flower only", kind ? kind : "?");
	if (!proto || strlen(proto) >= sizeof(f->proto) || w.pref < 1 || w.pref > 65535)
		return refuse(&w, "no protocol or prio");
	f->pref = (uint16_t)w.pref;
	f->handle = w.handle;
	snprintf(f->proto, sizeof(f->proto), "%s", proto);
	if (!json_object_object_get_ex(opt, "keys", &v))
		return refuse(&w, "no keys");
	if (parse_keys(&w, v, f) < 0 || parse_options(&w, opt, f) < 0)
		return -EINVAL;
	if (!json_object_object_get_ex(opt, "actions", &v))
		return refuse(&w, "no actions");
	return parse_actions(&w, v, f);
}

/* JSON whitespace at *AT skipped; the next character (or '\0' at LEN). */
static char skip_space(const char *json, size_t len, size_t *at)
{
	while (*at < len && strchr(" \t\r\n", json[*at]) && json[*at])
		(*at)++;
	return *at < len ? json[*at] : '\0';
}

/* One filter entry of the array: what json-c parsed starting at its first character. */
static int take_entry(json_object *e, const char *dev, struct ag_filters *out, char *err,
		      size_t errlen)
{
	struct ag_filter f;
	json_object *v;
	int rc;

	if (!json_object_is_type(e, json_type_object)) {
		snprintf(err, errlen, "%s: tc printed a filter that is not a JSON object", dev);
		return -EINVAL;
	}
	/* the prio's own entry has no options; other chains are not managed */
	if (!json_object_object_get_ex(e, "options", &v) ||
	    (json_object_object_get_ex(e, "chain", &v) && json_object_get_int(v) != 0))
		return 0;
	rc = parse_filter(e, dev, &f, err, errlen);
	return rc == 0 ? ag_filters_push(out, &f) : rc;
}

/* The array is read one entry at a time: json-c parses the entry that starts at the
 * current offset and says where it ended (json_tokener_get_parse_end), the entry is turned
 * into a filter and freed before the next. Building the whole array at once made a tick at
 * 15K filters mostly malloc's work (about 10 MB of JSON in several hundred thousand small
 * objects, freed together). Between entries only the array's own ',' and ']' are read. */
int ag_tc_parse(const char *json, size_t len, const char *dev, struct ag_filters *out,
		char *err, size_t errlen)
{
	struct json_tokener *tok = json_tokener_new();
	size_t at = 0;
	int rc = 0;
	char c;

	if (!tok || len > (size_t)INT32_MAX || skip_space(json, len, &at) != '[') {
		snprintf(err, errlen, "%s: tc printed no JSON array of filters", dev);
		json_tokener_free(tok);
		return -EINVAL;
	}
	at++;
	c = skip_space(json, len, &at);
	while (rc == 0 && c != ']') {
		json_object *e;

		json_tokener_reset(tok);
		e = json_tokener_parse_ex(tok, json + at, (int)(len - at));
		if (!e || json_tokener_get_error(tok) != json_tokener_success) {
			snprintf(err, errlen, "%s: tc's JSON is not valid at byte %zu", dev,
				 at + json_tokener_get_parse_end(tok));
			rc = -EINVAL;
			break;
		}
		at += json_tokener_get_parse_end(tok);
		rc = take_entry(e, dev, out, err, errlen);
		json_object_put(e);
		c = skip_space(json, len, &at);
		if (rc == 0 && c == ',') {
			at++;
			c = skip_space(json, len, &at);
		} else if (rc == 0 && c != ']') {
			snprintf(err, errlen, "%s: tc's JSON array of filters is not closed", dev);
			rc = -EINVAL;
		}
	}
	json_tokener_free(tok);
	return rc;
}
