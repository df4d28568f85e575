// A geometry shader writing two streams (written for texlate's tests): SM5 writes OSG5,
// whose elements carry the stream each `dcl_stream` opens.
gs_5_0
dcl_globalFlags refactoringAllowed
dcl_input_siv v[1][0].xyzw, position
dcl_input v[1][1].xyz
dcl_inputprimitive point
dcl_stream m0
dcl_outputtopology pointlist
dcl_output_siv o0.xyzw, position
dcl_output o1.xyz
dcl_stream m1
dcl_outputtopology pointlist
dcl_output_siv o0.xyzw, position
dcl_output o1.x
dcl_maxout 1
mov o0.xyzw, v[0][0].xyzw
mov o1.xyz, v[0][1].xyzx
emit_stream m0
mov o0.xyzw, v[0][0].xyzw
mov o1.x, v[0][1].x
emit_stream m1
ret
