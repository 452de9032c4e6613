/* SPDX-License-Identifier: MIT */
/*
 * topo_mask: matching masks and matches (mask + values): parse/format, specificity,
 * coverage between matches, packet hits, normalisation.
 * Assumes header values are host-order integers no wider than their field (topo_field_width);
 * a prefix field's value is a 32-bit IPv4 address whose top plen bits are significant.
 */
#include "topology/topo.h"
#include "topology/topo_internal.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool topo__mask_valid(const struct topo_mask *m)
{
	if (m->fields >> TOPO_F_COUNT)
		return false;
	for (unsigned f = 0; f < TOPO_F_COUNT; f++) {
		bool in = m->fields & (1u << f);

		if (in && (TOPO__PREFIX_FIELDS & (1u << f))) {
			if (m->plen[f] < 1 || m->plen[f] > 32)
				return false;
		} else if (m->plen[f] != 0) {
			return false;
		}
	}
	return true;
}

bool topo_mask_has(const struct topo_mask *m, enum topo_field f)
{
	return (unsigned)f < TOPO_F_COUNT && (m->fields & (1u << f));
}

bool topo_mask_equal(const struct topo_mask *a, const struct topo_mask *b)
{
	if (a->fields != b->fields)
		return false;
	for (unsigned f = 0; f < TOPO_F_COUNT; f++)
		if ((a->fields & (1u << f)) && topo_field_has_prefix((enum topo_field)f) &&
		    a->plen[f] != b->plen[f])
			return false;
	return true;
}

unsigned topo_mask_bits(const struct topo_mask *m)
{
	unsigned bits = 0;

	for (unsigned f = 0; f < TOPO_F_COUNT; f++) {
		if (!topo_mask_has(m, (enum topo_field)f))
			continue;
		bits += topo_field_has_prefix((enum topo_field)f) ? m->plen[f]
								   : topo_field_width((enum topo_field)f);
	}
	return bits;
}

/* Parse one "field" or "field/N" item of LEN bytes at S into OUT. */
static int parse_item(const char *s, size_t len, struct topo_mask *out, struct scn_error *err)
{
	char item[64], *slash;
	enum topo_field f;
	unsigned plen = 32;

	while (len && isspace((unsigned char)*s))
		s++, len--;
	while (len && isspace((unsigned char)s[len - 1]))
		len--;
	if (len == 0)
		return scn_error_set(err, SCN_ERR_CONFIG, -EINVAL, "empty field in mask");
	if (len >= sizeof(item))
		return scn_error_set(err, SCN_ERR_CONFIG, -EINVAL, "mask field too long: '%.*s'",
				     (int)len, s);
	memcpy(item, s, len);
	item[len] = '\0';
	slash = strchr(item, '/');
	if (slash)
		*slash = '\0';
	if (topo_field_parse(item, &f) < 0)
		return scn_error_set(err, SCN_ERR_CONFIG, -EINVAL,
				     "unknown field '%s' in mask (known: in_port, eth_src, eth_dst, "
				     "eth_type, ip_src, ip_dst, ip_proto, l4_src, l4_dst, tun_id, "
				     "tun_src, tun_dst, tun_dport)", item);
	if (slash) {
		char *end;
		long v;

		if (!topo_field_has_prefix(f))
			return scn_error_set(err, SCN_ERR_CONFIG, -EINVAL,
					     "field '%s' takes no prefix length", item);
		v = strtol(slash + 1, &end, 10);
		if (end == slash + 1 || *end || v < 1 || v > 32)
			return scn_error_set(err, SCN_ERR_CONFIG, -EINVAL,
					     "prefix length of '%s' must be 1..32, got '%s'", item,
					     slash + 1);
		plen = (unsigned)v;
	}
	if (out->fields & (1u << f))
		return scn_error_set(err, SCN_ERR_CONFIG, -EINVAL, "field '%s' appears twice in mask",
				     item);
	out->fields |= 1u << f;
	if (topo_field_has_prefix(f))
		out->plen[f] = (uint8_t)plen;
	return 0;
}

int topo_mask_parse(const char *s, struct topo_mask *out, struct scn_error *err)
{
	struct topo_mask m;
	const char *p;

	memset(&m, 0, sizeof(m));
	if (!s || !out)
		return scn_error_set(err, SCN_ERR_INTERNAL, -EINVAL, "no mask given");
	p = s;
	while (isspace((unsigned char)*p))
		p++;
	if (*p) {
		for (;;) {
			const char *comma = strchr(p, ',');
			size_t len = comma ? (size_t)(comma - p) : strlen(p);
			int rc = parse_item(p, len, &m, err);

			if (rc < 0)
				return rc;
			if (!comma)
				break;
			p = comma + 1;
		}
	}
	*out = m;
	return 0;
}

const char *topo_mask_format(const struct topo_mask *m, char *buf, size_t len)
{
	size_t n = 0;

	if (!len)
		return buf;
	buf[0] = '\0';
	for (unsigned f = 0; f < TOPO_F_COUNT; f++) {
		int w;

		if (!topo_mask_has(m, (enum topo_field)f))
			continue;
		if (topo_field_has_prefix((enum topo_field)f) && m->plen[f] && m->plen[f] < 32)
			w = snprintf(buf + n, len - n, "%s%s/%u", n ? "," : "",
				     topo_field_name((enum topo_field)f), m->plen[f]);
		else
			w = snprintf(buf + n, len - n, "%s%s", n ? "," : "",
				     topo_field_name((enum topo_field)f));
		if (w < 0 || (size_t)w >= len - n)
			break;
		n += (size_t)w;
	}
	return buf;
}

void topo_match_normalise(struct topo_match *m)
{
	for (unsigned f = 0; f < TOPO_F_COUNT; f++) {
		if (!(TOPO__PREFIX_FIELDS & m->mask.fields & (1u << f)))
			m->mask.plen[f] = 0;
		m->value[f] &= topo__field_bits(&m->mask, (enum topo_field)f);
	}
}

bool topo_match_hits(const struct topo_match *m, const uint64_t pkt[TOPO_F_COUNT])
{
	for (unsigned f = 0; f < TOPO_F_COUNT; f++) {
		uint64_t bits;

		if (!(m->mask.fields & (1u << f)))
			continue;
		bits = topo__field_bits(&m->mask, (enum topo_field)f);
		if ((pkt[f] & bits) != (m->value[f] & bits))
			return false;
	}
	return true;
}

bool topo_match_covers(const struct topo_match *b, const struct topo_match *a)
{
	if ((b->mask.fields & a->mask.fields) != b->mask.fields)
		return false;
	for (unsigned f = 0; f < TOPO_F_COUNT; f++) {
		uint64_t bits;

		if (!(b->mask.fields & (1u << f)))
			continue;
		if (topo_field_has_prefix((enum topo_field)f) && b->mask.plen[f] > a->mask.plen[f])
			return false;
		bits = topo__field_bits(&b->mask, (enum topo_field)f);
		if ((a->value[f] & bits) != (b->value[f] & bits))
			return false;
	}
	return true;
}
