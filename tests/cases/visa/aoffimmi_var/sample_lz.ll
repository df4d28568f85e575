; ModuleID = '1'
source_filename = "1"
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024"
target triple = "spir64"

%opencl.image2d_ro_t = type opaque
%opencl.sampler_t = type opaque

; Function Attrs: convergent norecurse nounwind
define dso_local spir_kernel void @k(%opencl.image2d_ro_t addrspace(1)* %img, %opencl.sampler_t addrspace(2)* %s, <4 x float> addrspace(1)* noundef %out) #0 !kernel_arg_addr_space !3 !kernel_arg_access_qual !4 !kernel_arg_type !5 !kernel_arg_base_type !6 !kernel_arg_type_qual !7 !kernel_arg_name !8 {
entry:
  %img.addr = alloca %opencl.image2d_ro_t addrspace(1)*, align 8
  %s.addr = alloca %opencl.sampler_t addrspace(2)*, align 8
  %out.addr = alloca <4 x float> addrspace(1)*, align 8
  %i = alloca i32, align 4
  %.compoundliteral = alloca <2 x float>, align 8
  store %opencl.image2d_ro_t addrspace(1)* %img, %opencl.image2d_ro_t addrspace(1)** %img.addr, align 8, !tbaa !9
  store %opencl.sampler_t addrspace(2)* %s, %opencl.sampler_t addrspace(2)** %s.addr, align 8, !tbaa !13
  store <4 x float> addrspace(1)* %out, <4 x float> addrspace(1)** %out.addr, align 8, !tbaa !15
  %0 = bitcast i32* %i to i8*
  call void @llvm.lifetime.start.p0i8(i64 4, i8* %0) #4
  %call = call spir_func i64 @_Z13get_global_idj(i32 noundef 0) #5
  %conv = trunc i64 %call to i32
  store i32 %conv, i32* %i, align 4, !tbaa !17
  %1 = load %opencl.image2d_ro_t addrspace(1)*, %opencl.image2d_ro_t addrspace(1)** %img.addr, align 8, !tbaa !9
  %2 = load %opencl.sampler_t addrspace(2)*, %opencl.sampler_t addrspace(2)** %s.addr, align 8, !tbaa !13
  %3 = load i32, i32* %i, align 4, !tbaa !17
  %conv1 = sitofp i32 %3 to float
  %mul = fmul float %conv1, 0x3FB99999A0000000
  %vecinit = insertelement <2 x float> undef, float %mul, i32 0
  %vecinit2 = insertelement <2 x float> %vecinit, float 5.000000e-01, i32 1
  store <2 x float> %vecinit2, <2 x float>* %.compoundliteral, align 8, !tbaa !19
  %4 = load <2 x float>, <2 x float>* %.compoundliteral, align 8, !tbaa !19
  %offr = and i32 %3, 1
  %r = call <4 x float> @llvm.genx.GenISA.sampleLptr.v4f32.f32.p196608f32.p589824i32(float 0.000000e+00, float %mul, float 5.000000e-01, float 0.000000e+00, float 0.000000e+00, float addrspace(196608)* null, i32 addrspace(589824)* null, i32 -8, i32 7, i32 %offr)
  %call3 = fadd <4 x float> %r, zeroinitializer
  %5 = load <4 x float> addrspace(1)*, <4 x float> addrspace(1)** %out.addr, align 8, !tbaa !15
  %6 = load i32, i32* %i, align 4, !tbaa !17
  %idxprom = sext i32 %6 to i64
  %arrayidx = getelementptr inbounds <4 x float>, <4 x float> addrspace(1)* %5, i64 %idxprom
  store <4 x float> %call3, <4 x float> addrspace(1)* %arrayidx, align 16, !tbaa !19
  %7 = bitcast i32* %i to i8*
  call void @llvm.lifetime.end.p0i8(i64 4, i8* %7) #4
  ret void
}

declare <4 x float> @llvm.genx.GenISA.sampleLptr.v4f32.f32.p196608f32.p589824i32(float, float, float, float, float, float addrspace(196608)*, i32 addrspace(589824)*, i32, i32, i32)

; Function Attrs: argmemonly nofree nosync nounwind willreturn
declare void @llvm.lifetime.start.p0i8(i64 immarg, i8* nocapture) #1

; Function Attrs: convergent nounwind readnone willreturn
declare spir_func i64 @_Z13get_global_idj(i32 noundef) #2

; Function Attrs: convergent nounwind readonly willreturn
declare spir_func <4 x float> @_Z11read_imagef14ocl_image2d_ro11ocl_samplerDv2_f(%opencl.image2d_ro_t addrspace(1)*, %opencl.sampler_t addrspace(2)*, <2 x float> noundef) #3

; Function Attrs: argmemonly nofree nosync nounwind willreturn
declare void @llvm.lifetime.end.p0i8(i64 immarg, i8* nocapture) #1

attributes #0 = { convergent norecurse nounwind "frame-pointer"="none" "min-legal-vector-width"="128" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "uniform-work-group-size"="true" }
attributes #1 = { argmemonly nofree nosync nounwind willreturn }
attributes #2 = { convergent nounwind readnone willreturn "frame-pointer"="none" "no-trapping-math"="true" "stack-protector-buffer-size"="8" }
attributes #3 = { convergent nounwind readonly willreturn "frame-pointer"="none" "no-trapping-math"="true" "stack-protector-buffer-size"="8" }
attributes #4 = { nounwind }
attributes #5 = { convergent nounwind readnone willreturn }
attributes #6 = { convergent nounwind readonly willreturn }

!llvm.module.flags = !{!0}
!opencl.ocl.version = !{!1}
!opencl.spir.version = !{!1}
!llvm.ident = !{!2}

!0 = !{i32 1, !"wchar_size", i32 4}
!1 = !{i32 1, i32 2}
!2 = !{!"Debian clang version 14.0.6"}
!3 = !{i32 1, i32 0, i32 1}
!4 = !{!"read_only", !"none", !"none"}
!5 = !{!"image2d_t", !"sampler_t", !"float4*"}
!6 = !{!"image2d_t", !"sampler_t", !"float __attribute__((ext_vector_type(4)))*"}
!7 = !{!"", !"", !""}
!8 = !{!"img", !"s", !"out"}
!9 = !{!10, !10, i64 0}
!10 = !{!"__read_only image2d_t", !11, i64 0}
!11 = !{!"omnipotent char", !12, i64 0}
!12 = !{!"Simple C/C++ TBAA"}
!13 = !{!14, !14, i64 0}
!14 = !{!"sampler_t", !11, i64 0}
!15 = !{!16, !16, i64 0}
!16 = !{!"any pointer", !11, i64 0}
!17 = !{!18, !18, i64 0}
!18 = !{!"int", !11, i64 0}
!19 = !{!11, !11, i64 0}
