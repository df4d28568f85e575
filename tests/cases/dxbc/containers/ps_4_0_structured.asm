// An SM4 pixel shader reading a structured buffer (written for texlate's tests): D3D11's
// raw and structured buffers in SM4 put the program in SHEX with SFI0 flag 0x2.
ps_4_0
dcl_globalFlags refactoringAllowed | enableRawAndStructuredBuffers
dcl_resource_structured t0, 16
dcl_input_ps_siv linear noperspective v0.xy, position
dcl_output o0.xyzw
dcl_temps 1
ftou r0.x, v0.x
ld_structured o0.xyzw, r0.x, l(0), t0.xyzw
ret
