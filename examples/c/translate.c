/* Translate one texture instruction with texlate's C API and print the output and the Report.
 *
 *   translate                        a DX sample of a 2D texture, to NVIDIA
 *   translate FROM TO INSTRUCTION    e.g. translate nvidia dxbc 'TEXS R6, R4, R4, R5, 0x6e, 2D, RGBA'
 *
 * Build (from the repository root):
 *   cargo build -p texlate-capi
 *   cc examples/c/translate.c -Iinclude -Ltarget/debug -ltexlate_capi \
 *      -Wl,-rpath,"$PWD/target/debug" -o translate
 *
 * Exit status: 0 success, 1 the input was rejected (the error is printed), 2 usage. */

#include <stdio.h>
#include <string.h>

#include "texlate.h"

static const char DEFAULT_INPUT[] =
    "ps_5_0\n"
    "dcl_resource_texture2d (float,float,float,float) t0\n"
    "dcl_sampler s0, mode_default\n"
    "sample r0.xyzw, r1.xyxx, t0.xyzw, s0\n";

int main(int argc, char **argv) {
    const char *from_name = "dxbc", *to_name = "nvidia", *input = DEFAULT_INPUT;
    if (argc == 4) {
        from_name = argv[1];
        to_name = argv[2];
        input = argv[3];
    } else if (argc != 1) {
        fprintf(stderr, "usage: %s [FROM TO INSTRUCTION]\n", argv[0]);
        return 2;
    }
    int32_t from = texlate_isa_from_name(from_name), to = texlate_isa_from_name(to_name);
    if (from < 0 || to < 0) {
        fprintf(stderr, "an ISA is visa, dxbc or nvidia\n");
        return 2;
    }
    if (texlate_abi_version() != TEXLATE_ABI_VERSION) {
        fprintf(stderr, "libtexlate_capi has ABI %u, this program was built for %u\n",
                texlate_abi_version(), TEXLATE_ABI_VERSION);
        return 2;
    }

    /* A one-line input needs its line end. */
    char text[4096];
    snprintf(text, sizeof text, "%s%s", input, input[strlen(input) - 1] == '\n' ? "" : "\n");

    TexlateOptions options = texlate_options_default((uint32_t)from, (uint32_t)to);
    options.input_name = "<argument>";
    TexlateResult *result = NULL;
    TexlateStatus status =
        texlate_translate((const uint8_t *)text, strlen(text), &options, &result);
    if (status != TEXLATE_STATUS_OK) {
        fprintf(stderr, "texlate %s: status %d (%s)\n%s", texlate_version(), (int)status,
                texlate_status_name(status), texlate_result_error_message(result));
        fprintf(stderr, "as JSON: %s\n", texlate_result_error_json(result));
        texlate_result_free(result);
        return 1;
    }
    size_t len = 0;
    const uint8_t *output = texlate_result_output(result, &len);
    printf("== %s -> %s\n", from_name, to_name);
    fwrite(output, 1, len, stdout);
    printf("== Report\n%s\n", texlate_result_report_json(result));
    texlate_result_free(result);
    return 0;
}
