/* SPDX-License-Identifier: MIT */
/*
 * gen_addr: the addressing plan of generated rule sets (see gen_addr.h): port ids and
 * container addresses. Pure functions; no allocation.
 */
#include "generators/gen_addr.h"

uint32_t gen_vf_port(uint32_t per_subnet, uint32_t subnet, uint32_t c)
{
	return 2u + 2u * (subnet * per_subnet + c);
}

uint32_t gen_container_ip(enum gen_host h, uint32_t subnet, uint32_t c)
{
	return (10u << 24) | (subnet << 16) | ((uint32_t)h << 15) | (c + 1u);
}

uint64_t gen_container_mac(enum gen_host h, uint32_t subnet, uint32_t c)
{
	return (0x02ULL << 40) | ((uint64_t)h << 32) | ((uint64_t)subnet << 24) | c;
}
