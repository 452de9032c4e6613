/* SPDX-License-Identifier: MIT */
/*
 * cmd_keygen: `scalacn keygen -o KEY`: a new Ed25519 key pair for signing model files
 * (opt_key_generate in libscalacn-opt): KEY holds the secret key (mode 0600), KEY.pub the
 * public key agents give opt_model_load_signed. Existing files are never overwritten.
 */
#include <stdio.h>

#include "harness/cli/hx_cli.h"
#include "optimiser/scalacn-opt.h"

int hx_cmd_keygen(int argc, char **argv)
{
	struct hx_args a = HX_ARGS("keygen", argc, argv);
	const char *out = NULL;
	char pub[4096], msg[600];
	int c;

	while ((c = hx_opt_next(&a)) != -1) {
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

static const struct hx_opt keygen_opts[] = {
	{ "output", 'o', "KEY", "the secret key file to write (KEY.pub beside it)",
	  HX_COMPLETE_FILE, 'o' },
	HX_OPT_END,
};

const struct hx_command hx_def_keygen = {
	"keygen", "make a key pair for signing model files", NULL, keygen_opts,
	"Writes a new Ed25519 key pair: KEY (the secret key, mode 0600: keep it with whoever\n"
	"exports models) and KEY.pub (the public key agents verify with). Neither may exist.\n",
	NULL, hx_cmd_keygen,
};
