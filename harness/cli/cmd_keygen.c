/* SPDX-License-Identifier: MIT */
/*
 * cmd_keygen: `scalacn keygen -o KEY`: a new Ed25519 key pair for signing model files
 * (opt_key_generate in libscalacn-opt): KEY holds the secret key (mode 0600), KEY.pub the
 * public key agents give opt_model_load_signed. Existing files are never overwritten.
 */
#include <getopt.h>
#include <stdio.h>

#include "harness/cli/hx_cli.h"
#include "optimiser/scalacn-opt.h"

int hx_cmd_keygen(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' }, { NULL, 0, NULL, 0 },
	};
	const char *out = NULL;
	char pub[4096], msg[600];
	int c;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:", opts, NULL)) != -1) {
		if (c != 'o')
			return hx_bad_option("keygen", argv);
		out = optarg;
	}
	if (optind != argc || !out)
		return hx_usage_error("keygen", "expected -o KEY and nothing else");
	if (snprintf(pub, sizeof(pub), "%s.pub", out) >= (int)sizeof(pub))
		return hx_usage_error("keygen", "path too long");
	if (opt_key_generate(out, pub, msg, sizeof(msg)) < 0) {
		fprintf(stderr, "scalacn keygen: %s\n", msg);
		return HX_EXIT_USAGE;
	}
	printf("wrote %s (secret key: keep it private) and %s (public key, for agents)\n", out,
	       pub);
	return HX_EXIT_OK;
}
