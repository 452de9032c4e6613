/* SPDX-License-Identifier: MIT */
/*
 * agent-mkmodel: writes a one-row model file with opt_model_write, for the agent's control
 * run in the guest (scripts/vm/agent-job.sh: a model predicting < 5% degradation at the
 * table, so the agent must not act) and for its tests. Not a fitted model: a stated one.
 * Usage: agent-mkmodel OUT RNIC FIRMWARE VERB METRIC FORM INPUTS PARAM...
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <scalacn-opt.h>

static int form_of(const char *s, enum opt_form *f)
{
	for (int i = OPT_FORM_RBF2; i <= OPT_FORM_CLIFFY; i++)
		if (!strcmp(opt_form_name((enum opt_form)i), s)) {
			*f = (enum opt_form)i;
			return 0;
		}
	return -1;
}

int main(int argc, char **argv)
{
	struct opt_model_row row = { 0 };
	char err[512];

	if (argc < 9 || argc - 8 > OPT_MODEL_MAX_PARAMS || form_of(argv[6], &row.form) < 0) {
		fprintf(stderr, "usage: agent-mkmodel OUT RNIC FIRMWARE VERB METRIC FORM INPUTS "
			"PARAM...\n");
		return 2;
	}
	row.rnic_model = argv[2];
	row.firmware = argv[3];
	row.verb = argv[4];
	row.metric = argv[5];
	row.inputs = argv[7];
	for (int i = 8; i < argc; i++)
		row.params[row.n_params++] = strtod(argv[i], NULL);
	if (opt_model_write(argv[1], &row, 1, err, sizeof(err)) < 0) {
		fprintf(stderr, "agent-mkmodel: %s\n", err);
		return 1;
	}
	return 0;
}
