/* SPDX-License-Identifier: MIT */
/*
 * agent-test-util: tc stand-in and table generator for the agent's tests and benchmark
 * (see agent-test-util.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent-test-util.h"

static long find_known(const struct ag_filters *known, const char *line, unsigned prio,
		       unsigned handle)
{
	char buf[2 * AG_ARGS_MAX + 128], dev[32];

	if (sscanf(line, "filter add dev %31s", dev) != 1)
		return -1;
	for (size_t i = 0; i < known->n; i++)
		if (ag_render_add(&known->v[i], dev, (uint16_t)prio, handle, buf, sizeof(buf)) == 0 &&
		    !strcmp(buf, line))
			return (long)i;
	return -1;
}

/* Delete the filters at PRIO (HANDLE 0: all of them); -1 when none was there. */
static int del_filters(struct ag_filters *fs, unsigned prio, unsigned handle)
{
	size_t k = 0;

	for (size_t i = 0; i < fs->n; i++)
		if (fs->v[i].pref != prio || (handle && fs->v[i].handle != handle))
			fs->v[k++] = fs->v[i];
	if (k == fs->n)
		return -1;
	fs->n = k;
	return 0;
}

static int apply_line(struct ag_filters *fs, const struct ag_filters *known, const char *line)
{
	const char *p = strstr(line, " prio "), *h = strstr(line, " handle ");
	unsigned prio, handle = 0;
	long k;

	if (!p || sscanf(p, " prio %u", &prio) != 1 || (h && sscanf(h, " handle %u", &handle) != 1))
		return -1;
	if (!strncmp(line, "filter del ", 11))
		return del_filters(fs, prio, handle);
	for (size_t i = 0; i < fs->n; i++)
		if (fs->v[i].pref == prio && fs->v[i].handle == handle)
			return -1; /* tc: File exists */
	if (strncmp(line, "filter add ", 11) || (k = find_known(known, line, prio, handle)) < 0)
		return -1;
	struct ag_filter f = known->v[k];

	f.pref = (uint16_t)prio;
	f.handle = handle;
	return ag_filters_push(fs, &f);
}

int agt_apply_batch(struct ag_filters *fs, const struct ag_filters *known, const char *batch)
{
	char *copy = strdup(batch), *save = NULL;
	int rc = copy ? 0 : -1;

	for (char *l = copy ? strtok_r(copy, "\n", &save) : NULL; l && rc == 0;
	     l = strtok_r(NULL, "\n", &save))
		rc = apply_line(fs, known, l);
	free(copy);
	ag_filters_sort(fs);
	return rc;
}

char *agt_fixture(const char *name, size_t *len)
{
	const char *dir = getenv("SCALACN_FIXTURES");
	char path[4096];
	FILE *f;
	char *buf = NULL;
	long n;

	snprintf(path, sizeof(path), "%s/%s", dir ? dir : "tests/fixtures", name);
	if (!(f = fopen(path, "rb")))
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
	    (buf = malloc((size_t)n + 1)) && fread(buf, 1, (size_t)n, f) == (size_t)n) {
		buf[n] = '\0';
		*len = (size_t)n;
	} else {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

static const char *actions_json(unsigned index, uint64_t packets, bool decap)
{
	static char buf[1024];
	char st[128];

	snprintf(st, sizeof(st), "\"stats\":{\"bytes\":0,\"packets\":%llu,\"drops\":0}",
		 (unsigned long long)packets);
	if (decap)
		snprintf(buf, sizeof(buf), "[{\"order\":1,\"kind\":\"tunnel_key\",\"mode\":\"unset\","
			 "\"control_action\":{\"type\":\"pipe\"},\"index\":%u,\"ref\":1,\"bind\":1,%s},"
			 "{\"order\":2,\"kind\":\"mirred\",\"mirred_action\":\"redirect\",\"direction\":"
			 "\"egress\",\"to_dev\":\"veth1\",\"control_action\":{\"type\":\"stolen\"},"
			 "\"index\":%u,\"ref\":1,\"bind\":1,%s}]", index, st, index, st);
	else
		snprintf(buf, sizeof(buf), "[{\"order\":1,\"kind\":\"gact\",\"control_action\":"
			 "{\"type\":\"pass\"},\"index\":%u,\"ref\":1,\"bind\":1,%s}]", index, st);
	return buf;
}

/* Decap filter J of mask M: a distinct mask per M from the tunnel prefixes it matches. */
static void decap_keys(unsigned m, unsigned j, char *buf, size_t len)
{
	unsigned dplen = m % 33, splen = (m / 33) % 8 * 4;
	char tun[128] = "";

	if (dplen)
		snprintf(tun, sizeof(tun), ",\"enc_dst_ip\":\"172.20.0.0/%u\"", dplen);
	if (splen)
		snprintf(tun + strlen(tun), sizeof(tun) - strlen(tun),
			 ",\"enc_src_ip\":\"172.16.0.0/%u\"", splen);
	snprintf(buf, len, "{\"eth_type\":\"ipv4\",\"dst_ip\":\"10.0.%u.%u\",\"src_ip\":"
		 "\"10.1.%u.%u\"%s,\"enc_key_id\":%u,\"enc_dst_port\":4789}", m % 256, j % 256,
		 j / 256 % 256, m % 256, tun, 1000 + j);
}

char *agt_table_json(unsigned masks, unsigned per_mask, uint64_t roce_packets)
{
	return agt_table_json_at(masks, per_mask, roce_packets, NULL);
}

char *agt_table_json_at(unsigned masks, unsigned per_mask, uint64_t roce_packets,
			const uint16_t *prefs)
{
	char *buf = NULL, keys[512];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	unsigned index = 1;

	fputc('[', f);
	for (unsigned m = 0; m < masks; m++) {
		unsigned pref = prefs ? prefs[m] : m + 2;

		fprintf(f, "{\"protocol\":\"ip\",\"pref\":%u,\"kind\":\"flower\",\"chain\":0},", pref);
		for (unsigned j = 0; j < per_mask; j++, index++) {
			decap_keys(m, j, keys, sizeof(keys));
			fprintf(f, "{\"protocol\":\"ip\",\"pref\":%u,\"kind\":\"flower\",\"chain\":0,"
				"\"options\":{\"handle\":%u,\"keys\":%s,\"not_in_hw\":true,\"actions\":%s}},",
				pref, j + 1, keys, actions_json(index, 0, true));
		}
	}
	fprintf(f, "{\"protocol\":\"ip\",\"pref\":%u,\"kind\":\"flower\",\"chain\":0,\"options\":"
		"{\"handle\":1,\"keys\":{\"dst_mac\":\"52:54:00:77:00:02\",\"eth_type\":\"ipv4\","
		"\"ip_proto\":\"udp\",\"dst_ip\":\"192.168.77.2\",\"dst_port\":4791},\"not_in_hw\":true,"
		"\"actions\":%s}}]", prefs ? prefs[masks] : 300, actions_json(index, roce_packets, false));
	fclose(f);
	return buf;
}
