/* SPDX-License-Identifier: MIT */
/*
 * ag_agent: reading a device's table with tc, starting (original layout kept, mirror built),
 * running a tc batch, restoring the original order, freeing (see ag_agent.h). One tick is
 * ag_tick.c; metrics are ag_metrics.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent/ag_agent.h"
#include "agent/ag_exec.h"
#include "agent/ag_state.h"

int ag_agent_read(const struct ag_agent *a, const char *dev, struct ag_filters *out, char *err,
		  size_t errlen)
{
	char *argv[] = { (char *)a->cfg.tc, "-s", "-j", "filter", "show", "dev", (char *)dev,
			 "ingress", NULL };
	char *text = NULL;
	size_t len = 0;
	int rc = ag_exec_capture(argv, &text, &len, err, errlen);

	memset(out, 0, sizeof(*out));
	if (rc == 0 && len == 0)
		rc = 0; /* no ingress qdisc filters: tc prints nothing */
	else if (rc == 0)
		rc = ag_tc_parse(text, len, dev, out, err, errlen);
	free(text);
	if (rc == 0)
		ag_filters_sort(out);
	else
		ag_filters_free(out);
	return rc;
}

int ag_agent_batch(const struct ag_agent *a, const char *text, char *err, size_t errlen)
{
	char path[] = "/tmp/scalacn-agent-batch.XXXXXX";
	char *argv[] = { (char *)a->cfg.tc, "-batch", path, NULL };
	char *out = NULL;
	size_t len, n = strlen(text);
	int fd = mkstemp(path), rc = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, text, n) != (ssize_t)n)
		rc = -EIO;
	close(fd);
	if (rc == 0)
		rc = ag_exec_capture(argv, &out, &len, err, errlen);
	free(out);
	unlink(path);
	return rc;
}

/* The original layout of D: the state file, plus whatever filters it does not know yet
 * (they are where they were put). Saved unless this is a dry run. */
static int keep_original(struct ag_agent *a, struct ag_dev *d, const struct ag_filters *cur,
			 char *err, size_t errlen)
{
	int rc = ag_state_path(a->cfg.state_dir, d->m.dev, d->state_path, sizeof(d->state_path));

	if (rc == 0)
		rc = ag_state_load(d->state_path, &d->orig, err, errlen);
	if (rc == -ENOENT)
		rc = 0;
	if (rc == 0)
		rc = ag_state_merge(&d->orig, cur);
	if (rc > 0 && !a->dry_run) {
		mkdir(a->cfg.state_dir, 0755);
		rc = ag_state_save(d->state_path, d->m.dev, &d->orig, err, errlen);
	}
	return rc < 0 ? rc : 0;
}

static int build(struct ag_agent *a, struct ag_dev *d, struct ag_filters *fs, uint64_t now,
		 char *err, size_t errlen)
{
	char dev[16];
	int rc;

	snprintf(dev, sizeof(dev), "%s", d->m.dev);
	ag_mirror_free(&d->m);
	rc = ag_mirror_build(&d->m, dev, &a->oc, fs, &d->orig, now, err, errlen);
	snprintf(d->m.dev, sizeof(d->m.dev), "%s", dev);
	return rc;
}

/* Prios sharing a mask become one (ag_mirror_merge_batch), checked as a plan is, so that
 * every mask the optimiser moves owns exactly one prio; the mirror is rebuilt. */
int ag_agent_merge(struct ag_agent *a, struct ag_dev *d, uint64_t now, char *err,
		   size_t errlen)
{
	struct ag_filters after = { 0 }, fs = { 0 };
	struct opt_table_stats st;
	struct opt_pkt zero = { { 0 } };
	bool *seen = calloc(d->m.cur.n + 1, sizeof(*seen));
	char *text = NULL;
	size_t len = 0;
	unsigned lines = 0;
	FILE *mem = open_memstream(&text, &len);
	int rc = seen && mem ? 0 : -ENOMEM;

	opt_table_classify(d->m.t, &zero, NULL, NULL); /* refreshes the precedence */
	opt_table_stats(d->m.t, &st);
	if (rc == 0 && st.flagged_masks) {
		snprintf(err, errlen, "%s: its prios share masks in an order no single prio per mask "
			 "can keep (%u masks precede masks they must follow): not managed", d->m.dev,
			 st.flagged_masks);
		rc = -EPROTO;
	}
	if (rc == 0)
		rc = ag_mirror_merge_batch(&d->m, mem, &lines, &after);
	if (mem)
		fclose(mem);
	for (size_t i = 0; seen && i < d->m.cur.n; i++)
		seen[i] = d->m.cur.v[i].packets > 0;
	if (rc == 0)
		fprintf(a->log, "scalacn-agent: %s: %zu prios hold %u masks: merging them (%u tc "
			"operations)%s\n", d->m.dev, d->m.n_prios, st.masks, lines,
			a->dry_run ? " (dry run: printed)" : "");
	if (rc == 0 && a->dry_run)
		fprintf(a->ops_out, "# %s: prios sharing a mask merged\n%s", d->m.dev, text);
	else if (rc == 0 && (rc = ag_agent_batch(a, text, err, errlen)) == 0 &&
		 (rc = ag_agent_verify(a, d, &after, seen, err, errlen)) == 0) {
		d->st.rule_ops += lines;
		rc = ag_agent_read(a, d->m.dev, &fs, err, errlen);
		rc = rc ? rc : build(a, d, &fs, now, err, errlen);
	}
	ag_filters_free(&fs);
	ag_filters_free(&after);
	free(text);
	free(seen);
	return rc;
}

/* (Re)build D's mirror from FS (taken over). */
int ag_agent_mirror(struct ag_agent *a, struct ag_dev *d, struct ag_filters *fs, uint64_t now,
		    char *err, size_t errlen)
{
	int rc = keep_original(a, d, fs, err, errlen);

	return rc < 0 ? rc : build(a, d, fs, now, err, errlen);
}

int ag_agent_start(struct ag_agent *a, uint64_t now, char *err, size_t errlen)
{
	for (unsigned i = 0; i < a->cfg.n_devices; i++) {
		struct ag_dev *d = &a->dev[i];
		struct ag_filters fs;
		struct opt_table_stats ts;
		int rc;

		snprintf(d->m.dev, sizeof(d->m.dev), "%s", a->cfg.devices[i]);
		a->n_dev = i + 1;
		rc = ag_agent_read(a, d->m.dev, &fs, err, errlen);
		if (rc == 0)
			rc = ag_agent_mirror(a, d, &fs, now, err, errlen);
		ag_filters_free(&fs);
		if (rc < 0)
			return rc;
		opt_table_stats(d->m.t, &ts);
		fprintf(a->log, "scalacn-agent: %s: %u filters in %u masks (prios) mirrored\n",
			d->m.dev, ts.rules, ts.masks);
	}
	return 0;
}

static int restore_dev(struct ag_agent *a, struct ag_dev *d, char *err, size_t errlen)
{
	struct ag_filters cur;
	char *text = NULL;
	size_t len = 0;
	unsigned lines = 0, moved = 0;
	FILE *mem;
	int rc = ag_agent_read(a, d->m.dev, &cur, err, errlen);

	if (rc < 0)
		return rc;
	mem = open_memstream(&text, &len);
	rc = mem ? ag_state_restore_batch(&d->orig, &cur, d->m.dev, mem, &lines, &moved) : -ENOMEM;
	if (mem)
		fclose(mem);
	if (rc == 0 && lines)
		rc = a->dry_run ? (fputs(text, a->ops_out) < 0 ? -EIO : 0)
				: ag_agent_batch(a, text, err, errlen);
	free(text);
	ag_filters_free(&cur);
	if (rc == 0 && !a->dry_run)
		rc = ag_agent_read(a, d->m.dev, &cur, err, errlen);
	if (rc == 0 && !a->dry_run && !ag_state_equal(&d->orig, &cur, err, errlen))
		rc = -EPROTO;
	if (rc == 0 && !a->dry_run)
		unlink(d->state_path); /* the table is the original again */
	if (rc == 0)
		fprintf(a->log, "scalacn-agent: %s: restore: %u filters moved back (%u tc operations)"
			"%s\n", d->m.dev, moved, lines, a->dry_run ? " (dry run: printed)" :
			"; the table equals the original (tc -j filter show)");
	ag_filters_free(&cur);
	return rc;
}

int ag_agent_restore(struct ag_agent *a, char *err, size_t errlen)
{
	int rc = 0;

	for (unsigned i = 0; i < a->cfg.n_devices && rc == 0; i++) {
		struct ag_dev *d = &a->dev[i];

		snprintf(d->m.dev, sizeof(d->m.dev), "%s", a->cfg.devices[i]);
		if (!d->orig.n) {
			rc = ag_state_path(a->cfg.state_dir, d->m.dev, d->state_path,
					   sizeof(d->state_path));
			rc = rc ? rc : ag_state_load(d->state_path, &d->orig, err, errlen);
			if (rc == -ENOENT) {
				fprintf(a->log, "scalacn-agent: %s: no state file %s: nothing to "
					"restore\n", d->m.dev, d->state_path);
				rc = 0;
				continue;
			}
		}
		if (rc == 0)
			rc = restore_dev(a, d, err, errlen);
	}
	return rc;
}

void ag_agent_free(struct ag_agent *a)
{
	for (unsigned i = 0; i < AG_MAX_DEVICES; i++) {
		ag_mirror_free(&a->dev[i].m);
		ag_filters_free(&a->dev[i].orig);
	}
	opt_model_free(a->model);
	a->model = NULL;
}
