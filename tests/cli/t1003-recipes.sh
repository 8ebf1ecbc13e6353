#!/bin/sh
# t1003-recipes.sh - every core event the coverage table names exists in libpfm4
. "$(dirname "$0")/lib.sh"

test_expect_success 'each recipe core event encodes as TABLE::EVENT with LIBPFM_ENCODE_INACTIVE=1' '
	"$VP_HELPERS/check_recipes" >out || { grep "^BAD" out; return 1; }
	grep_q "^check_recipes: [1-9][0-9]* recipe lists, 0 bad events" out &&
	grep_q "^ok  skx::MEM_LOAD_L3_MISS_RETIRED:REMOTE_DRAM$" out &&
	grep_q "^ok  nhm::MEM_UNCORE_RETIRED:REMOTE_DRAM$" out &&
	grep_q "^ok  amd64_fam19h_zen3::DEMAND_DATA_CACHE_FILLS_FROM_SYSTEM:MEM_IO_RMT$" out
'

test_done
