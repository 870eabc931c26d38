(** * The fast FF layer equals docs/spec.md §1's FF layer (Fast.ff_fast, Semantics.ff_apply) *)
From Coq Require Import QArith Qminmax List Bool Lia Lqa Setoid Morphisms.
From Proofcheck Require Import Semantics Fast Vectors.
Import ListNotations.
Open Scope Q_scope.

(** A token's cache holds a true projection. *)
Ltac vring := let i := fresh "i" in
  intros i; repeat (rewrite ?nth_vadd, ?nth_vscale, ?nth_nil); ring.

Definition tc_ok (t : tok) : Prop := forall r p, tc t = Some (r, p) -> p == dot r (tx t).

Lemma proj_eq r t : tc_ok t -> proj r t == dot r (tx t).
Proof.
  unfold proj. intros H. destruct (tc t) as [[r' p]|] eqn:E.
  - destruct (rowb r r') eqn:R.
    + apply rowb_eq in R. subst. now apply H.
    + apply dotf_eq.
  - apply dotf_eq.
Qed.

Global Instance relu_proper : Proper (Qeq ==> Qeq) relu.
Proof.
  intros x y H. unfold relu. destruct (Qle_bool x 0) eqn:A, (Qle_bool y 0) eqn:B.
  - reflexivity.
  - apply Qle_bool_iff in A. apply Bool.not_true_iff_false in B.
    exfalso. apply B, Qle_bool_iff. now rewrite <- H.
  - apply Qle_bool_iff in B. apply Bool.not_true_iff_false in A.
    exfalso. apply A, Qle_bool_iff. now rewrite H.
  - exact H.
Qed.

Lemma relu_nonpos t : t <= 0 -> relu t == 0.
Proof. intros H. unfold relu. apply Qle_bool_iff in H. now rewrite H. Qed.

Lemma relu_pos t : 0 < t -> relu t == t.
Proof.
  intros H. unfold relu. destruct (Qle_bool t 0) eqn:E; [|reflexivity].
  apply Qle_bool_iff in E. lra.
Qed.

(** ** One group of units *)
Definition gterm (s : Q) (ms : list (Q * vec)) : vec :=
  vsum (map (fun bw => vscale (relu (s + fst bw)) (snd bw)) ms).

Definition opt_or (o : option vec) (acc : vec) : vec :=
  match o with Some a => a | None => acc end.

Lemma gterm_proper s s' ms : s == s' -> veqp (gterm s ms) (gterm s' ms).
Proof.
  intros H. unfold gterm. induction ms as [|[bk w] ms IH]; simpl; [reflexivity|].
  rewrite IH. now rewrite H.
Qed.

Lemma gterm_inactive s ms :
  Forall (fun bw => s + fst bw <= 0) ms -> veqp (gterm s ms) [].
Proof.
  unfold gterm. induction 1 as [|[bk w] ms H _ IH]; simpl; [reflexivity|].
  rewrite IH, (relu_nonpos _ H), vadd_nil_r. now apply vscale_zero.
Qed.

Lemma gterm_active s ms :
  Forall (fun bw => 0 < s + fst bw) ms ->
  veqp (gterm s ms) (vadd (vscale s (vsum (map snd ms)))
                          (vsum (map (fun bw => vscale (fst bw) (snd bw)) ms))).
Proof.
  unfold gterm. induction 1 as [|[bk w] ms H _ IH]; simpl; [reflexivity|].
  rewrite IH, (relu_pos _ H). simpl. vring.
Qed.

Lemma units_each_eq s ms acc : veqp (units_each s ms acc) (vadd acc (gterm s ms)).
Proof.
  unfold units_each, gterm. induction ms as [|[bk w] ms IH]; simpl.
  - symmetry. apply vadd_nil_r.
  - destruct (qle (qadd s bk) 0) eqn:E.
    + apply qle_iff in E. rewrite qadd_eq in E. rewrite IH, (relu_nonpos _ E).
      vring.
    + apply qle_false in E. rewrite qadd_eq in E. rewrite axpy_eq, IH, (relu_pos _ E).
      rewrite qadd_eq. vring.
Qed.

Lemma allzero_nil x : allzero x = true -> veqp x [].
Proof.
  unfold allzero. induction x as [|a x IH]; simpl; [reflexivity|].
  rewrite andb_true_iff. intros [H1 H2]. intros [|i]; simpl.
  - now apply qzero_eq.
  - specialize (IH H2 i). rewrite nth_nil in IH. exact IH.
Qed.

Lemma forallb_map_negb_qle s (ms : list (Q * vec)) :
  forallb negb (map (fun t => negb (qle s t)) (map (fun bw => Qopp (fst bw)) ms)) = true ->
  Forall (fun bw => s + fst bw <= 0) ms.
Proof.
  induction ms as [|[bk w] ms IH]; simpl; [constructor|].
  rewrite negb_involutive, andb_true_iff. intros [H1 H2]. constructor; auto.
  apply qle_iff in H1. simpl in *. lra.
Qed.

Lemma forallb_map_qle s (ms : list (Q * vec)) :
  forallb (fun a => a) (map (fun t => negb (qle s t)) (map (fun bw => Qopp (fst bw)) ms)) = true ->
  Forall (fun bw => 0 < s + fst bw) ms.
Proof.
  induction ms as [|[bk w] ms IH]; simpl; [constructor|].
  rewrite andb_true_iff. intros [H1 H2]. constructor; auto.
  apply negb_true_iff, qle_false in H1. simpl in *. lra.
Qed.

Lemma units_fast_eq s u ms acc :
  veqp (opt_or (units_fast s (prep_group (u, ms)) acc) acc) (vadd acc (gterm s ms)).
Proof.
  unfold units_fast, prep_group. cbn [g_thr g_units g_zero g_sw g_sbw fst snd].
  destruct (forallb negb _) eqn:N.
  { apply forallb_map_negb_qle in N. simpl. rewrite (gterm_inactive _ _ N).
    symmetry. apply vadd_nil_r. }
  destruct (forallb (fun a => a) _) eqn:P.
  2: { simpl. apply units_each_eq. }
  apply forallb_map_qle in P. rewrite (gterm_active _ _ P).
  assert (Sw : veqp (vsumf (map snd ms)) (vsum (map snd ms))) by apply vsumf_eq.
  assert (Sb : veqp (vsumf (map (fun bw => scalef (fst bw) (snd bw)) ms))
                    (vsum (map (fun bw => vscale (fst bw) (snd bw)) ms))).
  { rewrite vsumf_eq. apply vsum_proper. clear. induction ms as [|[bk w] ms IH]; simpl;
      constructor; [apply scalef_eq | apply IH]. }
  destruct (allzero _ && allzero _) eqn:Z; simpl.
  - apply andb_true_iff in Z as [Z1 Z2]. apply allzero_nil in Z1, Z2.
    rewrite <- Sw, <- Sb, Z1, Z2. vring.
  - rewrite axpy_eq, vaddf_eq, Sw, Sb. vring.
Qed.

(** ** Groups: the units in order *)
Definition uterm (x : vec) (ubw : vec * Q * vec) : vec :=
  let '(u, bk, w) := ubw in vscale (relu (dot u x + bk)) w.

Definition flat (gs : list (vec * list (Q * vec))) : list (vec * Q * vec) :=
  concat (map (fun g => map (fun bw => (fst g, fst bw, snd bw)) (snd g)) gs).

Lemma group_flat units : flat (group units) = units.
Proof.
  induction units as [|[[u bk] w] rest IH]; [reflexivity|]. simpl.
  destruct (group rest) as [|[u' ms] gs] eqn:G.
  - rewrite <- IH. reflexivity.
  - destruct (rowb u u') eqn:R.
    + apply rowb_eq in R. rewrite <- IH, <- R. reflexivity.
    + rewrite <- IH. reflexivity.
Qed.

Lemma vsum_flat x gs :
  veqp (vsum (map (uterm x) (flat gs)))
       (vsum (map (fun g => gterm (dot (fst g) x) (snd g)) gs)).
Proof.
  induction gs as [|[u ms] gs IH]; [reflexivity|]. unfold flat in *. simpl.
  rewrite map_app, vsum_app, IH, map_map. reflexivity.
Qed.

Definition ffsum (f : ff Q) (x : vec) : vec :=
  vsum (map (fun g => gterm (dot (fst g) x) (snd g))
            (group (combine (combine (U f) (b f)) (W f)))).

Lemma ff_apply_groups f x : veqp (ff_apply f x) (vadd (vscale (eta f) x) (ffsum f x)).
Proof.
  unfold ff_apply, ffsum. rewrite <- vsum_flat, group_flat. reflexivity.
Qed.

Lemma ff_vec_eq f t :
  tc_ok t -> veqp (ff_vec (prep_ff f) t) (vadd (vscale (eta f) (tx t)) (ffsum f (tx t))).
Proof.
  intros Ht. unfold ff_vec, ffsum, prep_ff. cbn [pf_groups pf_eta].
  generalize (group (combine (combine (U f) (b f)) (W f))) as gs.
  induction gs as [|[u ms] gs IH]; simpl.
  - rewrite scalef_eq. symmetry. apply vadd_nil_r.
  - change (match ?o with Some a => a | None => ?acc end) with (opt_or o acc).
    rewrite units_fast_eq, IH, (gterm_proper _ _ ms (proj_eq u t Ht)). vring.
Qed.

Lemma units_fast_none s u ms acc :
  units_fast s (prep_group (u, ms)) acc = None -> veqp (gterm s ms) [].
Proof.
  intros N. assert (E := units_fast_eq s u ms []).
  unfold units_fast in *. destruct (forallb negb _); [|destruct (forallb (fun a => a) _)].
  - simpl in E. rewrite ?vadd_nil_l in E. now symmetry.
  - destruct (g_zero _); [|discriminate]. simpl in E. rewrite ?vadd_nil_l in E. now symmetry.
  - discriminate.
Qed.

Lemma ff_fast_ok f t :
  tc_ok t ->
  veqp (tx (ff_fast (prep_ff f) t)) (ff_apply f (tx t)) /\ tc_ok (ff_fast (prep_ff f) t).
Proof.
  intros Ht. rewrite ff_apply_groups. unfold ff_fast.
  destruct (pf_skip (prep_ff f)) eqn:S.
  { split; [|exact Ht]. unfold prep_ff in S. cbn [pf_skip] in S.
    apply andb_true_iff in S as [S1 S2]. apply qone_eq in S1. rewrite S1.
    unfold ffsum. destruct (combine _ _); [|discriminate]. simpl. vring. }
  destruct (ff_unchanged (prep_ff f) t) eqn:N.
  - unfold ff_unchanged, prep_ff in N. cbn [pf_eta pf_groups] in N.
    apply andb_true_iff in N as [N1 N2]. apply qone_eq in N1.
    assert (Z : veqp (ffsum f (tx t)) []).
    { unfold ffsum. apply vsum_zero. rewrite forallb_forall in N2. apply Forall_forall.
      intros y Hy. apply in_map_iff in Hy as [[u ms] [<- Hg]]. simpl.
      rewrite <- (gterm_proper _ _ ms (proj_eq u t Ht)).
      specialize (N2 (prep_group (u, ms)) (in_map _ _ _ Hg)).
      destruct (units_fast _ _ _) eqn:E; [discriminate|]. now apply units_fast_none in E. }
    rewrite N1, Z. unfold prep_ff. cbn [pf_groups].
    destruct (map prep_group _) as [|g gs]; simpl; split; try vring; try exact Ht.
    intros r p E. injection E as <- <-. simpl. now apply proj_eq.
  - simpl. split; [now apply ff_vec_eq|]. intros r p E. discriminate.
Qed.

(** ** The semantic FF layer: a function of the token's coordinates, of length d *)
Global Instance ff_apply_proper f : Proper (veqp ==> veqp) (ff_apply f).
Proof.
  intros x x' H. unfold ff_apply. rewrite H. apply vadd_proper; [reflexivity|].
  apply vsum_proper. induction (combine _ _) as [|[[u bk] w] us IH]; simpl; constructor; auto.
  now rewrite H.
Qed.

Lemma ff_apply_length d f x :
  length x = d -> Forall (fun w => length w = d) (W f) -> length (ff_apply f x) = d.
Proof.
  intros Lx Lw. unfold ff_apply. rewrite length_vadd, length_vscale, Lx.
  assert ((length (vsum (map (fun ubw => let '(u, bk, w) := ubw in
            vscale (relu (dot u x + bk)) w) (combine (combine (U f) (b f)) (W f)))) <= d)%nat).
  { apply length_vsum. apply Forall_forall. intros v Hv. apply in_map_iff in Hv as [[[u bk] w] [<- Hin]].
    apply in_combine_r in Hin. rewrite Forall_forall in Lw. rewrite length_vscale, (Lw w Hin). lia. }
  lia.
Qed.
