// A compute shader of SM4 (written for texlate's tests): SHEX, empty signatures, and u9
// is past D3D11.0's eight UAV slots (SFI0 flag 0x8).
cs_4_0
dcl_globalFlags refactoringAllowed
dcl_uav_raw u9
dcl_input vThreadID.x
dcl_temps 1
dcl_thread_group 8, 1, 1
ishl r0.x, vThreadID.x, l(2)
store_raw u9.x, r0.x, vThreadID.x
ret
