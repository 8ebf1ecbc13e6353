/* kernels.c - bandwidth kernels (read, write, non-temporal write, copy, triad) per ISA, runtime dispatch */
#include "bench/internal.h"

#include <string.h>

#if defined(__x86_64__)
#include <immintrin.h>
#define VP_X86 1
#else
#define VP_X86 0
#endif

static const char *const isa_names[BW_ISA_N] = { "scalar", "sse2", "avx2", "avx512" };
static const char *const kernel_names[BW_KERNEL_N] = { "read", "write", "write-nt", "copy",
							"triad" };

const char *bw_isa_name(int isa)
{
	return isa >= 0 && isa < BW_ISA_N ? isa_names[isa] : "?";
}

const char *bw_kernel_name(int k)
{
	return k >= 0 && k < BW_KERNEL_N ? kernel_names[k] : "?";
}

int bw_isa_lookup(const char *name)
{
	int i;

	for (i = 0; i < BW_ISA_N; i++)
		if (!strcmp(isa_names[i], name))
			return i;
	return -1;
}

int bw_kernel_lookup(const char *name)
{
	int i;

	for (i = 0; i < BW_KERNEL_N; i++)
		if (!strcmp(kernel_names[i], name))
			return i;
	return -1;
}

static bool isa_usable(int isa)
{
	switch (isa) {
	case BW_ISA_SCALAR:
		return true;
#if VP_X86
	case BW_ISA_SSE2:
		return true;
	case BW_ISA_AVX2:
		__builtin_cpu_init();
		return __builtin_cpu_supports("avx2");
	case BW_ISA_AVX512:
		__builtin_cpu_init();
		return __builtin_cpu_supports("avx512f");
#endif
	default:
		return false;
	}
}

int bw_isa_pick(int isa)
{
	int i;

	if (isa >= 0)
		return isa < BW_ISA_N && isa_usable(isa) ? isa : -1;
	for (i = BW_ISA_N - 1; i > 0; i--)
		if (isa_usable(i))
			return i;
	return BW_ISA_SCALAR;
}

int bw_kernel_bytes_factor(int k)
{
	return k == BW_COPY ? 2 : k == BW_TRIAD ? 3 : 1;
}

/* Portable C: also the reference the vector kernels are checked against. */
VP_UNINSTRUMENTED static uint64_t run_scalar(int k, void *a, const void *b, const void *c, size_t n)
{
	uint64_t *pa = a, s0 = 0, s1 = 0, s2 = 0, s3 = 0;
	const uint64_t *pb = b;
	double *da = a;
	const double *db = b, *dc = c;
	size_t i, w = n / 8;

	switch (k) {
	case BW_READ:
		for (i = 0; i < w; i += 4) {
			s0 += pb[i];
			s1 += pb[i + 1];
			s2 += pb[i + 2];
			s3 += pb[i + 3];
		}
		return s0 + s1 + s2 + s3;
	case BW_WRITE:
	case BW_WRITE_NT:
		for (i = 0; i < w; i++)
			((volatile uint64_t *)pa)[i] = i;
		return 0;
	case BW_COPY:
		for (i = 0; i < w; i++)
			pa[i] = ((const volatile uint64_t *)pb)[i];
		return 0;
	case BW_TRIAD:
		for (i = 0; i < w; i++)
			da[i] = db[i] + 3.0 * ((const volatile double *)dc)[i];
		return 0;
	}
	return 0;
}

#if VP_X86
VP_UNINSTRUMENTED static uint64_t run_sse2(int k, void *a, const void *b, const void *c, size_t n)
{
	__m128i *va = a, s0 = _mm_setzero_si128(), s1 = s0, s2 = s0, s3 = s0, one = _mm_set1_epi32(1);
	const __m128i *vb = b;
	__m128d *fa = a, three = _mm_set1_pd(3.0);
	const __m128d *fb = b, *fc = c;
	size_t i, w = n / 16;
	uint64_t out[2];

	switch (k) {
	case BW_READ:
		for (i = 0; i < w; i += 4) {
			s0 = _mm_add_epi64(s0, _mm_load_si128(vb + i));
			s1 = _mm_add_epi64(s1, _mm_load_si128(vb + i + 1));
			s2 = _mm_add_epi64(s2, _mm_load_si128(vb + i + 2));
			s3 = _mm_add_epi64(s3, _mm_load_si128(vb + i + 3));
		}
		s0 = _mm_add_epi64(_mm_add_epi64(s0, s1), _mm_add_epi64(s2, s3));
		_mm_storeu_si128((__m128i *)out, s0);
		return out[0] + out[1];
	case BW_WRITE:
		for (i = 0; i < w; i++)
			_mm_store_si128(va + i, one);
		return 0;
	case BW_WRITE_NT:
		for (i = 0; i < w; i++)
			_mm_stream_si128(va + i, one);
		_mm_sfence();
		return 0;
	case BW_COPY:
		/* non-temporal stores: see bw_kernel_run() */
		for (i = 0; i < w; i++)
			_mm_stream_si128(va + i, _mm_load_si128(vb + i));
		_mm_sfence();
		return 0;
	case BW_TRIAD:
		for (i = 0; i < w; i++)
			_mm_store_pd((double *)(fa + i),
				     _mm_add_pd(fb[i], _mm_mul_pd(three, fc[i])));
		return 0;
	}
	return 0;
}

__attribute__((target("avx2"))) VP_UNINSTRUMENTED
static uint64_t run_avx2(int k, void *a, const void *b, const void *c, size_t n)
{
	__m256i *va = a, s0 = _mm256_setzero_si256(), s1 = s0, s2 = s0, s3 = s0,
		one = _mm256_set1_epi32(1);
	const __m256i *vb = b;
	__m256d three = _mm256_set1_pd(3.0);
	const double *fb = b, *fc = c;
	double *fa = a;
	size_t i, w = n / 32;
	uint64_t out[4];

	switch (k) {
	case BW_READ:
		for (i = 0; i < w; i += 4) {
			s0 = _mm256_add_epi64(s0, _mm256_load_si256(vb + i));
			s1 = _mm256_add_epi64(s1, _mm256_load_si256(vb + i + 1));
			s2 = _mm256_add_epi64(s2, _mm256_load_si256(vb + i + 2));
			s3 = _mm256_add_epi64(s3, _mm256_load_si256(vb + i + 3));
		}
		s0 = _mm256_add_epi64(_mm256_add_epi64(s0, s1), _mm256_add_epi64(s2, s3));
		_mm256_storeu_si256((__m256i *)out, s0);
		return out[0] + out[1] + out[2] + out[3];
	case BW_WRITE:
		for (i = 0; i < w; i++)
			_mm256_store_si256(va + i, one);
		return 0;
	case BW_WRITE_NT:
		for (i = 0; i < w; i++)
			_mm256_stream_si256(va + i, one);
		_mm_sfence();
		return 0;
	case BW_COPY:
		for (i = 0; i < w; i++)
			_mm256_stream_si256(va + i, _mm256_load_si256(vb + i));
		_mm_sfence();
		return 0;
	case BW_TRIAD:
		for (i = 0; i < w; i++)
			_mm256_store_pd(fa + 4 * i, _mm256_add_pd(_mm256_load_pd(fb + 4 * i),
				_mm256_mul_pd(three, _mm256_load_pd(fc + 4 * i))));
		return 0;
	}
	return 0;
}

__attribute__((target("avx512f"))) VP_UNINSTRUMENTED
static uint64_t run_avx512(int k, void *a, const void *b, const void *c, size_t n)
{
	__m512i *va = a, s0 = _mm512_setzero_si512(), s1 = s0, s2 = s0, s3 = s0,
		one = _mm512_set1_epi32(1);
	const __m512i *vb = b;
	__m512d three = _mm512_set1_pd(3.0);
	const double *fb = b, *fc = c;
	double *fa = a;
	size_t i, w = n / 64;
	uint64_t out[8];

	switch (k) {
	case BW_READ:
		for (i = 0; i < w; i += 4) {
			s0 = _mm512_add_epi64(s0, _mm512_load_si512(vb + i));
			s1 = _mm512_add_epi64(s1, _mm512_load_si512(vb + i + 1));
			s2 = _mm512_add_epi64(s2, _mm512_load_si512(vb + i + 2));
			s3 = _mm512_add_epi64(s3, _mm512_load_si512(vb + i + 3));
		}
		s0 = _mm512_add_epi64(_mm512_add_epi64(s0, s1), _mm512_add_epi64(s2, s3));
		/* summed unsigned: _mm512_reduce_add_epi64 adds as signed long long,
		 * which a checksum of arbitrary words overflows (undefined) */
		_mm512_storeu_si512(out, s0);
		return out[0] + out[1] + out[2] + out[3] + out[4] + out[5] + out[6] + out[7];
	case BW_WRITE:
		for (i = 0; i < w; i++)
			_mm512_store_si512(va + i, one);
		return 0;
	case BW_WRITE_NT:
		for (i = 0; i < w; i++)
			_mm512_stream_si512(va + i, one);
		_mm_sfence();
		return 0;
	case BW_COPY:
		for (i = 0; i < w; i++)
			_mm512_stream_si512(va + i, _mm512_load_si512(vb + i));
		_mm_sfence();
		return 0;
	case BW_TRIAD:
		for (i = 0; i < w; i++)
			_mm512_store_pd(fa + 8 * i, _mm512_add_pd(_mm512_load_pd(fb + 8 * i),
				_mm512_mul_pd(three, _mm512_load_pd(fc + 8 * i))));
		return 0;
	}
	return 0;
}
#endif

/*
 * The vector copies store non-temporally, as glibc's memcpy does above its
 * non-temporal threshold (about the size of the shared cache): the arrays
 * here are several times the LLC, and an ordinary store first reads the
 * destination's line (read for ownership), a third transfer per line that the
 * figure (read + write, STREAM's counting) would not count, so the copy would
 * report 2/3 of the traffic it caused.  The portable C copy stays ordinary: it
 * is the reference the vector kernels are checked against.
 */
uint64_t bw_kernel_run(int isa, int k, void *a, const void *b, const void *c, size_t n)
{
	n &= ~(size_t)255;
	switch (isa) {
#if VP_X86
	case BW_ISA_SSE2:
		return run_sse2(k, a, b, c, n);
	case BW_ISA_AVX2:
		return run_avx2(k, a, b, c, n);
	case BW_ISA_AVX512:
		return run_avx512(k, a, b, c, n);
#endif
	default:
		return run_scalar(k, a, b, c, n);
	}
}
