// texlate fixture (written for texlate): a geometry shader's per-vertex inputs v[vertex][register]; Wine's D3DDisassemble prints every operand of its assembled blob as written here
gs_5_0
dcl_globalFlags refactoringAllowed
dcl_resource_texture2d (float,float,float,float) t0
dcl_sampler s0, mode_default
dcl_input v[3][0].xyzw
dcl_input v[3][1].xy
dcl_temps 1
dcl_inputprimitive triangle
dcl_stream m0
dcl_outputtopology trianglestrip
dcl_output_siv o0.xyzw, position
dcl_maxout 3
sample_l r0.xyzw, v[1][1].xyxx, t0.xyzw, s0, l(0.000000)
add o0.xyzw, r0.xyzw, v[2][0].xyzw
emit_stream m0
ret 
