(** * The fast SA layer equals docs/spec.md §1's hardmax SA layer (Fast.sa_fast, Semantics.sa_apply) *)
From Coq Require Import QArith Qminmax List Bool Lia Lqa Setoid Morphisms.
From Proofcheck Require Import Semantics Fast Vectors FFProof.
Import ListNotations.
Open Scope Q_scope.

(** ** The maximum of a score row *)
Definition qmaxs (init : Q) (s : list Q) : Q := fold_right Qmax init s.

Lemma fold_qmax_eq init s : fold_right qmax init s == qmaxs init s.
Proof.
  induction s as [|a s IH]; simpl; [reflexivity|]. rewrite qmax_eq, IH. reflexivity.
Qed.

Lemma smax_eq s : smax s == fold_right Qmax (hd 0 s) s.
Proof. apply fold_qmax_eq. Qed.

Lemma qmaxs_proper init init' s s' :
  init == init' -> Forall2 Qeq s s' -> qmaxs init s == qmaxs init' s'.
Proof. intros H. induction 1; simpl; auto. now apply Q.max_compat. Qed.

Lemma hd_proper s s' : Forall2 Qeq s s' -> hd 0 s == hd 0 s'.
Proof. destruct 1; simpl; [reflexivity | auto]. Qed.

Lemma smax_proper s s' : Forall2 Qeq s s' -> smax s == smax s'.
Proof.
  intros H. rewrite !smax_eq. apply qmaxs_proper; auto. now apply hd_proper.
Qed.

Lemma max_scale p a b : 0 < p -> Qmax (p * a) (p * b) == p * Qmax a b.
Proof.
  intros Hp. destruct (Qlt_le_dec a b) as [H|H].
  - rewrite (Q.max_r a b) by lra. apply Q.max_r. apply Qmult_le_l; lra.
  - rewrite (Q.max_l a b) by lra. apply Q.max_l. apply Qmult_le_l; lra.
Qed.

Lemma qmaxs_scale p init s : 0 < p -> qmaxs (p * init) (map (Qmult p) s) == p * qmaxs init s.
Proof.
  intros Hp. induction s as [|a s IH]; simpl; [reflexivity|]. rewrite IH. now apply max_scale.
Qed.

Lemma smax_scale p s : 0 < p -> smax (map (Qmult p) s) == p * smax s.
Proof.
  intros Hp. rewrite !smax_eq. destruct s as [|a s]; simpl; [ring|].
  change (Qmax (p * a) (qmaxs (p * a) (map (Qmult p) s)) == p * Qmax a (qmaxs a s)).
  rewrite qmaxs_scale by exact Hp. now apply max_scale.
Qed.

(** ** Selection: the keys on the argmax set *)
Lemma qeqb_proper x x' m m' : x == x' -> m == m' -> qeqb x m = qeqb x' m'.
Proof.
  intros H1 H2. rewrite !qeqb_spec. apply eq_true_iff_eq. rewrite !Qeq_bool_iff. now rewrite H1, H2.
Qed.

Lemma select_with_proper (s s' : list Q) m m' (K : list vec) :
  Forall2 Qeq s s' -> m == m' ->
  map snd (filter (fun sk => qeqb (fst sk) m) (combine s K)) =
  map snd (filter (fun sk => qeqb (fst sk) m') (combine s' K)).
Proof.
  intros H Hm. revert K. induction H as [|x x' s s' Hx H IH]; intros [|k K]; simpl; auto.
  rewrite (qeqb_proper x x' m m' Hx Hm). destruct (qeqb x' m'); simpl; rewrite IH; auto.
Qed.

Lemma Forall2_Qeq_refl s : Forall2 Qeq s s.
Proof. induction s; constructor; auto. reflexivity. Qed.

Lemma select_proper s s' K : Forall2 Qeq s s' -> select s K = select s' K.
Proof. intros H. unfold select. apply select_with_proper; auto. now apply smax_proper. Qed.

Lemma select_keys_proper s K K' :
  Forall2 veqp K K' -> Forall2 veqp (select s K) (select s K').
Proof.
  unfold select. generalize (smax s) as m. intros m H. revert s.
  induction H as [|k k' K K' Hk H IH]; intros [|x s]; simpl; try constructor.
  destruct (qeqb x m); simpl; auto.
Qed.

Lemma map_Qmult_proper p p' s : p == p' -> Forall2 Qeq (map (Qmult p) s) (map (Qmult p') s).
Proof. intros H. induction s; simpl; constructor; auto. now rewrite H. Qed.

Lemma select_scale_pos p qs K : 0 < p -> select (map (Qmult p) qs) K = select qs K.
Proof.
  intros Hp. unfold select.
  rewrite (select_with_proper _ _ _ (p * smax qs) K (Forall2_Qeq_refl _) (smax_scale p qs Hp)).
  generalize (smax qs) as m. intros m. revert K. induction qs as [|q qs IH]; intros [|k K]; simpl; auto.
  assert (E : qeqb (p * q) (p * m) = qeqb q m).
  { rewrite !qeqb_spec. apply eq_true_iff_eq. rewrite !Qeq_bool_iff.
    apply Qmult_inj_l. lra. }
  rewrite E. destruct (qeqb q m); simpl; rewrite IH; auto.
Qed.

Lemma select_scale_zero p qs K :
  p == 0 -> length qs = length K -> select (map (Qmult p) qs) K = K.
Proof.
  intros Hp L. unfold select.
  assert (Z : Forall (fun x => x == 0) (map (Qmult p) qs)).
  { apply Forall_forall. intros x Hx. apply in_map_iff in Hx as [q [<- _]]. rewrite Hp. ring. }
  assert (M : smax (map (Qmult p) qs) == 0).
  { rewrite smax_eq. generalize dependent (map (Qmult p) qs). intros s Z.
    assert (H0 : hd 0 s == 0) by (destruct Z; simpl; [reflexivity | auto]).
    generalize dependent (hd 0 s). intros i Hi. induction Z; simpl; auto.
    rewrite H, IHZ. apply Q.max_id. }
  generalize dependent (smax (map (Qmult p) qs)). intros m M. clear Z.
  revert K L. induction qs as [|q qs IH]; intros [|k K] L; simpl in *; try discriminate; auto.
  replace (qeqb (p * q) m) with true.
  - simpl. rewrite IH; auto.
  - symmetry. apply qeqb_iff. rewrite M, Hp. ring.
Qed.

Lemma select1_eq p qs K :
  length qs = length K -> select1 p qs K = select (map (Qmult p) qs) K.
Proof.
  intros L. unfold select1. destruct (qpos p) eqn:P.
  { apply qpos_iff in P. now rewrite select_scale_pos. }
  destruct (qzero p) eqn:Z.
  { apply qzero_eq in Z. now rewrite select_scale_zero. }
  assert (N : p < 0).
  { destruct (qsign_cases p) as [[H|H]|H]; auto.
    - apply qpos_iff in H. congruence.
    - apply qzero_iff in H. congruence. }
  rewrite <- (select_scale_pos (- p) (map Qopp qs) K) by lra.
  apply select_proper. clear. induction qs; simpl; constructor; try ring; auto.
Qed.

Lemma select1_proper p p' qs qs' K :
  p == p' -> Forall2 Qeq qs qs' -> select1 p qs K = select1 p' qs' K.
Proof.
  intros Hp Hq. unfold select1.
  assert (Pp : qpos p = qpos p').
  { apply eq_true_iff_eq. rewrite !qpos_iff. now rewrite Hp. }
  assert (Pz : qzero p = qzero p').
  { apply eq_true_iff_eq. rewrite !qzero_iff. now rewrite Hp. }
  rewrite Pp, Pz. rewrite (select_proper qs qs' K Hq).
  destruct (qpos p'), (qzero p'); auto; apply select_proper;
    induction Hq; simpl; constructor; auto; now rewrite H.
Qed.

(** ** Hardmax weights average the argmax set *)
Lemma weighted_filter (P : Q -> bool) c s K :
  veqp (vsum (map (fun px => vscale (fst px) (snd px))
                  (combine (map (fun sl => if P sl then c else 0) s) K)))
       (vscale c (vsum (map snd (filter (fun sk => P (fst sk)) (combine s K))))).
Proof.
  revert K; induction s as [|a s IH]; intros [|k K]; simpl; try reflexivity.
  destruct (P a); simpl; rewrite IH.
  - symmetry. apply vscale_vadd.
  - rewrite (vscale_zero 0 k) by reflexivity. apply vadd_nil_l.
Qed.

Lemma filter_qeqb_eq (s : list Q) m (K : list vec) :
  filter (fun sk => qeqb (fst sk) m) (combine s K) =
  filter (fun sk => Qeq_bool (fst sk) m) (combine s K).
Proof.
  revert K; induction s as [|a s IH]; intros [|k K]; simpl; auto.
  rewrite qeqb_spec. destruct (Qeq_bool a m); rewrite IH; auto.
Qed.

Lemma length_filter_combine m s (K : list vec) :
  length s = length K ->
  length (map snd (filter (fun sk => Qeq_bool (fst sk) m) (combine s K))) =
  length (filter (fun sl => Qeq_bool sl m) s).
Proof.
  rewrite map_length. revert K; induction s as [|a s IH]; intros [|k K] L; simpl in *;
    try discriminate; auto.
  destruct (Qeq_bool a m); simpl; rewrite IH; auto.
Qed.

Lemma avg_eq C : veqp (avg C) (vscale (1 / inject_Z (Z.of_nat (length C))) (vsum C)).
Proof. unfold avg. rewrite scalef_eq, Qred_correct, vsumf_eq. reflexivity. Qed.

Lemma hardmax_avg s K :
  length s = length K ->
  veqp (vsum (map (fun px => vscale (fst px) (snd px)) (combine (hardmax s) K)))
       (avg (select s K)).
Proof.
  intros L. unfold hardmax. rewrite weighted_filter, avg_eq.
  assert (Sel : select s K = map snd (filter (fun sk => Qeq_bool (fst sk) (fold_right Qmax (hd 0 s) s))
                                             (combine s K))).
  { unfold select. rewrite <- (filter_qeqb_eq s (fold_right Qmax (hd 0 s) s) K).
    apply select_with_proper; [apply Forall2_Qeq_refl | apply smax_eq]. }
  rewrite Sel, length_filter_combine by exact L. reflexivity.
Qed.

Lemma avg_proper C C' : Forall2 veqp C C' -> veqp (avg C) (avg C').
Proof.
  intros H. rewrite !avg_eq. assert (L : length C = length C') by (induction H; simpl; auto).
  rewrite L. now rewrite (vsum_proper _ _ H).
Qed.

(** ** Factored matrices *)
Lemma fapplyf_eq M y : veqp (fapplyf M y) (fapply M y).
Proof.
  unfold fapplyf, fapply. generalize (combine (left M) (right M)) as abs.
  induction abs as [|[a b'] abs IH]; simpl.
  - rewrite scalef_eq. symmetry. apply vadd_nil_r.
  - destruct (qzero (dotf b' y)) eqn:Z.
    + apply qzero_eq in Z. rewrite dotf_eq in Z. rewrite IH, (vscale_zero _ a Z). vring.
    + rewrite axpy_eq, IH, dotf_eq. vring.
Qed.

Global Instance fapply_proper M : Proper (veqp ==> veqp) (fapply M).
Proof.
  intros y y' H. unfold fapply. rewrite H. apply vadd_proper; [reflexivity|].
  apply vsum_proper. induction (combine _ _) as [|[a b'] abs IH]; simpl; constructor; auto.
  now rewrite H.
Qed.

Lemma attend_avg Ah K xi :
  veqp (attend Ah K xi) (avg (select (map (fun xl => dot (fapply Ah xi) xl) K) K)).
Proof. unfold attend. apply hardmax_avg. apply map_length. Qed.

Lemma scores_proper Ah K xi xi' :
  veqp xi xi' -> Forall2 Qeq (map (fun xl => dot (fapply Ah xi) xl) K)
                             (map (fun xl => dot (fapply Ah xi') xl) K).
Proof. intros H. induction K; simpl; constructor; auto. now rewrite H. Qed.

Lemma select_scores_keys Ah K K' xi :
  Forall2 veqp K K' ->
  Forall2 veqp (select (map (fun xl => dot (fapply Ah xi) xl) K) K)
               (select (map (fun xl => dot (fapply Ah xi) xl) K') K').
Proof.
  intros H. rewrite (select_proper _ (map (fun xl => dot (fapply Ah xi) xl) K')).
  - now apply select_keys_proper.
  - induction H; simpl; constructor; auto. now rewrite H.
Qed.

Lemma attend_proper Ah K K' xi xi' :
  Forall2 veqp K K' -> veqp xi xi' -> veqp (attend Ah K xi) (attend Ah K' xi').
Proof.
  intros HK Hx. rewrite !attend_avg. apply avg_proper.
  rewrite (select_proper _ _ K (scores_proper Ah K xi xi' Hx)).
  now apply select_scores_keys.
Qed.

(** ** One head *)
Definition IX (X : list vec) : list (nat * vec) := combine (seq 0 (length X)) X.

Definition hterm (h : head Q) (c : bool) (X : list vec) (ix : nat * vec) : vec :=
  fapply (V h) (attend (A h) (keys c (fst ix) X) (snd ix)).

Lemma map_IX_snd {T} (f : vec -> T) X : map (fun ix => f (snd ix)) (IX X) = map f X.
Proof.
  unfold IX. generalize 0%nat. induction X as [|x X IH]; intros k; simpl; auto. now rewrite IH.
Qed.

Lemma combine_seq_map (g : vec -> Q) k X :
  combine (seq k (length X)) (map g X) =
  map (fun ix => (fst ix, g (snd ix))) (combine (seq k (length X)) X).
Proof. revert k; induction X as [|x X IH]; intros k; simpl; auto. now rewrite IH. Qed.

Lemma Forall2_map_veqp {T} (f g : T -> vec) l :
  (forall x, In x l -> veqp (f x) (g x)) -> Forall2 veqp (map f l) (map g l).
Proof.
  induction l as [|x l IH]; intros H; simpl; constructor.
  - apply H. now left.
  - apply IH. intros y Hy. apply H. now right.
Qed.

Lemma head_gen_ok h c X :
  Forall2 veqp (head_gen (A h) (V h) c X) (map (hterm h c X) (IX X)).
Proof.
  apply Forall2_map_veqp. intros [i xi] _. unfold hterm. cbn [fst snd].
  rewrite fapplyf_eq, attend_avg. apply fapply_proper, avg_proper.
  rewrite (select_proper _ (map (fun xl => dot (fapply (A h) xi) xl) (keys c i X))).
  - clear. induction (select _ _); constructor; auto. reflexivity.
  - induction (keys c i X); simpl; constructor; auto. now rewrite dotf_eq, fapplyf_eq.
Qed.

Lemma rank1_scores Ah a b' xi K :
  left Ah = [a] -> right Ah = [b'] -> lam Ah == 0 ->
  Forall2 Qeq (map (fun xl => dot (fapply Ah xi) xl) K) (map (Qmult (dot b' xi)) (map (dot a) K)).
Proof.
  intros L R Z. assert (F : veqp (fapply Ah xi) (vscale (dot b' xi) a)).
  { unfold fapply. rewrite L, R, Z. simpl. rewrite (vscale_zero 0 xi) by reflexivity. vring. }
  induction K as [|xl K IH]; simpl; constructor; auto. rewrite F. apply dot_vscale_l.
Qed.

Lemma rank1_token h a b' Vh K xi :
  left (A h) = [a] -> right (A h) = [b'] -> lam (A h) == 0 -> V h = Vh ->
  veqp (fapplyf Vh (avg (select1 (dotf b' xi) (map (dotf a) K) K)))
       (fapply (V h) (attend (A h) K xi)).
Proof.
  intros L R Z E. subst Vh. rewrite fapplyf_eq, attend_avg. apply fapply_proper.
  rewrite (select1_proper _ (dot b' xi) _ (map (dot a) K)).
  - rewrite select1_eq by now rewrite !map_length.
    rewrite (select_proper _ _ K (rank1_scores _ _ _ xi K L R Z)). reflexivity.
  - apply dotf_eq.
  - induction K; simpl; constructor; auto. apply dotf_eq.
Qed.

Lemma pick_ok qs ps Vh X p :
  In p ps -> pick (rank1_cases qs ps Vh X) p = fapplyf Vh (avg (select1 p qs X)).
Proof.
  intros Hp. unfold pick, rank1_cases, select1. cbn [c_max c_all c_min].
  destruct (qpos p) eqn:P.
  { replace (existsb qpos ps) with true; auto. symmetry. apply existsb_exists. eauto. }
  destruct (qzero p) eqn:Z.
  { replace (existsb qzero ps) with true; auto. symmetry. apply existsb_exists. eauto. }
  replace (existsb _ ps) with true; auto. symmetry. apply existsb_exists. exists p.
  rewrite P, Z. auto.
Qed.

Lemma head_rank1_ok h a b' c X :
  left (A h) = [a] -> right (A h) = [b'] -> lam (A h) == 0 ->
  Forall2 veqp (head_rank1 a b' (rowb a b') (V h) c X) (map (hterm h c X) (IX X)).
Proof.
  intros L R Z. unfold head_rank1.
  assert (Ps : (if rowb a b' then map (dotf a) X else map (dotf b') X) = map (dotf b') X).
  { destruct (rowb a b') eqn:S; auto. apply rowb_eq in S. now subst. }
  rewrite Ps. destruct c.
  - rewrite combine_seq_map, map_map. apply Forall2_map_veqp. intros [i xi] _.
    unfold hterm. cbn [fst snd keys]. rewrite firstn_map.
    now apply rank1_token.
  - rewrite map_map. rewrite <- (map_IX_snd (fun x => pick _ (dotf b' x))).
    apply Forall2_map_veqp. intros [i xi] Hin. unfold hterm. cbn [fst snd keys].
    rewrite pick_ok.
    + now apply rank1_token.
    + apply in_map. unfold IX in Hin. now apply in_combine_r in Hin.
Qed.

Lemma head_fast_ok h c X :
  Forall2 veqp (head_fast (prep_head h) c X) (map (hterm h c X) (IX X)).
Proof.
  unfold prep_head.
  destruct (left (A h)) as [|a [|? ?]] eqn:L; try apply head_gen_ok.
  destruct (right (A h)) as [|b' [|? ?]] eqn:R; try apply head_gen_ok.
  destruct (qzero (lam (A h))) eqn:Z; [|apply head_gen_ok].
  apply qzero_eq in Z. now apply head_rank1_ok.
Qed.

(** ** The layer: heads summed, token by token *)
Definition IXk (k : nat) (X : list vec) : list (nat * vec) := combine (seq k (length X)) X.

Lemma length_IXk k X : length (IXk k X) = length X.
Proof. unfold IXk. rewrite combine_length, seq_length. lia. Qed.

Lemma nils_veqp {S T} (l : list S) (l' : list T) :
  length l = length l' -> Forall2 veqp (map (fun _ => []) l) (map (fun _ => []) l').
Proof.
  revert l'; induction l as [|x l IH]; intros [|y l'] L; simpl in *; try discriminate; constructor.
  - reflexivity.
  - apply IH. lia.
Qed.

Lemma zipadd_ok {T} xs ys (l : list T) f g :
  Forall2 veqp xs (map f l) -> Forall2 veqp ys (map g l) ->
  Forall2 veqp (zipadd xs ys) (map (fun ix => vadd (f ix) (g ix)) l).
Proof.
  revert xs ys; induction l as [|z l IH]; intros xs ys Hx Hy; simpl in *.
  - inversion Hx; subst. constructor.
  - inversion Hx; subst. inversion Hy; subst. simpl. constructor.
    + rewrite vaddf_eq. now apply vadd_proper.
    + now apply IH.
Qed.

Lemma heads_sum_ok hs c X :
  Forall2 veqp (fold_right (fun h acc => zipadd (head_fast h c X) acc)
                           (map (fun _ => []) X) (map prep_head hs))
               (map (fun ix => vsum (map (fun h => hterm h c X ix) hs)) (IX X)).
Proof.
  induction hs as [|h hs IH]; simpl.
  - apply nils_veqp. symmetry. apply length_IXk.
  - apply (zipadd_ok _ _ _ (hterm h c X)); auto. apply head_fast_ok.
Qed.

Lemma sa_apply_IX a X :
  sa_apply a X = map (fun ix => vadd (vscale (rho a) (snd ix))
                                     (vsum (map (fun h => hterm h (causal a) X ix) (heads a))))
                     (IX X).
Proof. reflexivity. Qed.

Lemma sa_vec_ok a X : Forall2 veqp (sa_vec (prep_sa a) X) (sa_apply a X).
Proof.
  unfold sa_vec, prep_sa. cbn [ps_rho ps_causal ps_heads]. rewrite sa_apply_IX.
  apply (zipadd_ok _ _ _ (fun ix => vscale (rho a) (snd ix))).
  - rewrite (map_IX_snd (vscale (rho a))). induction X; simpl; constructor; auto. apply scalef_eq.
  - apply heads_sum_ok.
Qed.

(** ** The semantic SA layer is a function of the tokens' coordinates *)
Lemma keys_proper c i X X' : Forall2 veqp X X' -> Forall2 veqp (keys c i X) (keys c i X').
Proof.
  intros H. destruct c; simpl; auto. revert i. induction H; intros [|i]; simpl; constructor; auto.
Qed.

Lemma Forall2_IXk (f f' : nat * vec -> vec) k X X' :
  Forall2 veqp X X' ->
  (forall i x x', veqp x x' -> veqp (f (i, x)) (f' (i, x'))) ->
  Forall2 veqp (map f (IXk k X)) (map f' (IXk k X')).
Proof.
  intros H Hf. revert k. unfold IXk. induction H; intros k; simpl; constructor; auto.
Qed.

Lemma sa_apply_proper a X X' : Forall2 veqp X X' -> Forall2 veqp (sa_apply a X) (sa_apply a X').
Proof.
  intros H. rewrite !sa_apply_IX. apply (Forall2_IXk _ _ 0 X X' H).
  intros i x x' Hx. cbn [snd]. apply vadd_proper; [now rewrite Hx|].
  apply vsum_proper. induction (heads a) as [|h hs IH]; simpl; constructor; auto.
  unfold hterm. cbn [fst snd]. apply fapply_proper, attend_proper; auto. now apply keys_proper.
Qed.

(** ** The fast layer on tokens with caches *)
Lemma map_snd_IX X : map snd (IX X) = X.
Proof. rewrite (map_IX_snd (fun x => x)). apply map_id. Qed.

Lemma fapply_vzero M y : vzero M = true -> veqp (fapply M y) [].
Proof.
  unfold vzero, fapply. rewrite andb_true_iff. intros [Z L].
  destruct (left M); [|discriminate]. simpl. apply qzero_eq in Z.
  rewrite (vscale_zero _ y Z). vring.
Qed.

Lemma sa_skip_ok a X :
  qone (rho a) && forallb (fun h => vzero (V h)) (heads a) = true ->
  Forall2 veqp X (sa_apply a X).
Proof.
  rewrite andb_true_iff. intros [O Z]. apply qone_eq in O.
  rewrite sa_apply_IX. rewrite <- (map_snd_IX X) at 1.
  apply Forall2_map_veqp. intros [i x] _. cbn [snd].
  rewrite O, vscale_one, vsum_zero; [symmetry; apply vadd_nil_r|].
  rewrite forallb_forall in Z. apply Forall_forall. intros y Hy.
  apply in_map_iff in Hy as [h [<- Hh]]. apply fapply_vzero, Z, Hh.
Qed.

Lemma prep_head_rank1 h a b' same Vh :
  prep_head h = PRank1 a b' same Vh ->
  left (A h) = [a] /\ right (A h) = [b'] /\ lam (A h) == 0 /\ same = rowb a b' /\ Vh = V h.
Proof.
  unfold prep_head. destruct (left (A h)) as [|a0 [|? ?]]; try discriminate.
  destruct (right (A h)) as [|b0 [|? ?]]; try discriminate.
  destruct (qzero (lam (A h))) eqn:Z; [|discriminate]. intros E. injection E as <- <- <- <-.
  apply qzero_eq in Z. auto.
Qed.

Lemma qpos_proper p p' : p == p' -> qpos p = qpos p'.
Proof. intros H. apply eq_true_iff_eq. rewrite !qpos_iff. now rewrite H. Qed.

Lemma qzero_proper p p' : p == p' -> qzero p = qzero p'.
Proof. intros H. apply eq_true_iff_eq. rewrite !qzero_iff. now rewrite H. Qed.

Lemma existsb_sign (f : Q -> bool) ps ps' :
  (forall p p', p == p' -> f p = f p') -> Forall2 Qeq ps ps' -> existsb f ps = existsb f ps'.
Proof. intros Hf. induction 1; simpl; auto. now rewrite (Hf _ _ H), IHForall2. Qed.

Lemma map_Qopp_proper qs qs' : Forall2 Qeq qs qs' -> Forall2 Qeq (map Qopp qs) (map Qopp qs').
Proof. induction 1; simpl; constructor; auto. now rewrite H. Qed.

Lemma rank1_cases_proper qs qs' ps ps' Vh X :
  Forall2 Qeq qs qs' -> Forall2 Qeq ps ps' -> rank1_cases qs ps Vh X = rank1_cases qs' ps' Vh X.
Proof.
  intros Hq Hp. unfold rank1_cases.
  rewrite (existsb_sign qpos ps ps' qpos_proper Hp), (existsb_sign qzero ps ps' qzero_proper Hp).
  rewrite (existsb_sign (fun p => negb (qpos p || qzero p)) ps ps'); auto.
  - rewrite (select_proper qs qs' X Hq), (select_proper _ _ X (map_Qopp_proper _ _ Hq)). reflexivity.
  - intros p p' H. now rewrite (qpos_proper p p' H), (qzero_proper p p' H).
Qed.

Lemma pick_proper cs p p' : p == p' -> pick cs p = pick cs p'.
Proof. intros H. unfold pick. now rewrite (qpos_proper p p' H), (qzero_proper p p' H). Qed.

Lemma tag_shape (T : list tok) ps ps' (f : Q -> vec) :
  Forall2 Qeq ps ps' -> length T = length ps ->
  (forall p p', p == p' -> f p = f p') ->
  map (fun tp => vaddf (tx (fst tp)) (vaddf (f (snd tp)) [])) (combine T ps) =
  zipadd (map tx T) (zipadd (map f ps') (map (fun _ => []) (map tx T))).
Proof.
  intros H. revert T. induction H as [|p p' ps ps' Hp H IH]; intros [|t T] L Hf; simpl in *;
    try discriminate; auto.
  rewrite (Hf p p' Hp), IH; auto.
Qed.

Lemma proj_map_eq b' T : Forall tc_ok T -> Forall2 Qeq (map (proj b') T) (map (dotf b') (map tx T)).
Proof.
  induction 1; simpl; constructor; auto. rewrite proj_eq, dotf_eq; auto. reflexivity.
Qed.

Lemma dotf_map_refl a X : Forall2 Qeq (map (dotf a) X) (map (dotf a) X).
Proof. apply Forall2_Qeq_refl. Qed.

Lemma tag_fast_vec a h a' b' same Vh T :
  Forall tc_ok T -> prep_head h = PRank1 a' b' same Vh -> heads a = [h] ->
  causal a = false -> qone (rho a) = true ->
  map tx (tag_fast a' b' same Vh T) = sa_vec (prep_sa a) (map tx T).
Proof.
  intros Ht Hh Hs Hc Ho. assert (Hh' := Hh). apply prep_head_rank1 in Hh as (L & R & Z & Sm & Ev).
  unfold sa_vec, prep_sa. cbn [ps_rho ps_heads ps_causal]. rewrite Hs, Hc. simpl.
  rewrite Hh'. simpl.
  unfold scalef. rewrite Ho, map_id. unfold tag_fast, head_rank1. rewrite map_map. cbn [tx].
  set (X := map tx T).
  assert (Hps : Forall2 Qeq (map (proj b') T)
                            (if same then map (dotf a') X else map (dotf b') X)).
  { rewrite Sm. destruct (rowb a' b') eqn:S; [apply rowb_eq in S; subst|]; now apply proj_map_eq. }
  assert (Hqs : Forall2 Qeq (if same then map (proj b') T else map (dotf a') X) (map (dotf a') X)).
  { rewrite Sm. destruct (rowb a' b') eqn:S; [apply rowb_eq in S; subst; now apply proj_map_eq|].
    apply Forall2_Qeq_refl. }
  rewrite (rank1_cases_proper _ _ _ _ Vh X Hqs Hps).
  subst X. apply tag_shape; auto.
  - now rewrite map_length.
  - apply pick_proper.
Qed.

Lemma in_combine_map {S T} (f : S -> T) l x y :
  In (x, y) (combine l (map f l)) -> y = f x /\ In x l.
Proof.
  induction l as [|z l IH]; simpl; intros H; [contradiction|].
  destruct H as [H|H]; [injection H as <- <-; auto|]. apply IH in H. intuition.
Qed.

Lemma pickq_dot b' cs p :
  pickq (dotf b' (c_max cs)) (dotf b' (c_all cs)) (dotf b' (c_min cs)) p = dotf b' (pick cs p).
Proof. unfold pickq, pick. destruct (qpos p), (qzero p); reflexivity. Qed.

Lemma tc_ok_some x r q : q == dot r x -> tc_ok (Tok x (Some (r, q))).
Proof. intros H r' q' E. injection E as <- <-. exact H. Qed.

Lemma tag_fast_cache a' b' same Vh T :
  Forall tc_ok T -> Forall tc_ok (tag_fast a' b' same Vh T).
Proof.
  intros Ht. unfold tag_fast. cbv zeta. apply Forall_forall. intros t' Hin.
  apply in_map_iff in Hin as [[t p] [<- Hin]]. apply in_combine_map in Hin as [-> Hin].
  rewrite Forall_forall in Ht. specialize (Ht t Hin).
  apply tc_ok_some. rewrite pickq_dot. set (v := pick _ _). cbn [fst snd] in *.
  rewrite qadd_eq, (proj_eq b' t Ht), (dotf_eq b' v).
  rewrite vaddf_eq, vaddf_eq, vadd_nil_r, dot_vadd_r. reflexivity.
Qed.

Lemma sa_fast_ok a T :
  Forall tc_ok T ->
  Forall2 (fun t z => veqp (tx t) z) (sa_fast (prep_sa a) T) (sa_apply a (map tx T)) /\
  Forall tc_ok (sa_fast (prep_sa a) T).
Proof.
  intros Ht.
  assert (Gen : forall Y, Forall2 veqp Y (sa_apply a (map tx T)) ->
            Forall2 (fun t z => veqp (tx t) z) (map (fun x => Tok x None) Y) (sa_apply a (map tx T)) /\
            Forall tc_ok (map (fun x => Tok x None) Y)).
  { intros Y HY. split.
    - induction HY; simpl; constructor; auto.
    - apply Forall_forall. intros t Hin. apply in_map_iff in Hin as [x [<- _]].
      intros r p E. discriminate. }
  assert (Tx : forall Y, Forall2 veqp (map tx Y) (sa_apply a (map tx T)) ->
            Forall2 (fun t z => veqp (tx t) z) Y (sa_apply a (map tx T))).
  { intros Y. generalize (sa_apply a (map tx T)). induction Y; intros Z H; inversion H; subst;
      constructor; auto. }
  unfold sa_fast. destruct (ps_skip (prep_sa a)) eqn:S.
  { split; auto. apply Tx, sa_skip_ok. exact S. }
  destruct (ps_heads (prep_sa a)) as [|[a' b' same Vh|Ah Vh] [|h2 hs]] eqn:Hh;
    try (apply Gen, sa_vec_ok).
  destruct (ps_causal (prep_sa a)) eqn:Hc; try (apply Gen, sa_vec_ok).
  destruct (qone (ps_rho (prep_sa a))) eqn:Ho; try (apply Gen, sa_vec_ok).
  unfold prep_sa in Hh, Hc, Ho. cbn [ps_heads ps_causal ps_rho] in Hh, Hc, Ho.
  destruct (heads a) as [|h [|? ?]] eqn:Ha; try discriminate. simpl in Hh. injection Hh as Hh.
  split; [|now apply tag_fast_cache].
  apply Tx. rewrite (tag_fast_vec a h a' b' same Vh T Ht Hh Ha Hc Ho). apply sa_vec_ok.
Qed.

(** ** Lengths *)
Lemma Forall_firstn {T} (P : T -> Prop) n l : Forall P l -> Forall P (firstn n l).
Proof. intros H. revert n. induction H as [|x l Hx H IH]; intros [|k]; simpl; constructor; auto. Qed.

Lemma attend_length d Ah K xi :
  Forall (fun x => length x = d) K -> (length (attend Ah K xi) <= d)%nat.
Proof.
  intros HK. unfold attend. apply length_vsum. apply Forall_forall. intros v Hv.
  apply in_map_iff in Hv as [[p x] [<- Hin]]. apply in_combine_r in Hin. simpl.
  rewrite length_vscale. rewrite Forall_forall in HK. rewrite (HK x Hin). lia.
Qed.

Lemma fapply_length d M y :
  Forall (fun v => length v = d) (left M) -> (length y <= d)%nat -> (length (fapply M y) <= d)%nat.
Proof.
  intros HM Hy. unfold fapply. rewrite length_vadd, length_vscale.
  assert ((length (vsum (map (fun ab => vscale (dot (snd ab) y) (fst ab))
                                (combine (left M) (right M)))) <= d)%nat); [|lia].
  apply length_vsum. apply Forall_forall. intros v Hv.
  apply in_map_iff in Hv as [[a' b'] [<- Hin]]. apply in_combine_l in Hin. simpl.
  rewrite length_vscale. rewrite Forall_forall in HM. rewrite (HM a' Hin). lia.
Qed.

Lemma sa_apply_length d a X :
  Forall (fun x => length x = d) X ->
  Forall (fun h => Forall (fun v => length v = d) (left (V h))) (heads a) ->
  Forall (fun y => length y = d) (sa_apply a X).
Proof.
  intros HX HV. rewrite sa_apply_IX. apply Forall_forall. intros y Hy.
  apply in_map_iff in Hy as [[i x] [<- Hin]]. cbn [fst snd].
  assert (Hx : length x = d).
  { unfold IX in Hin. apply in_combine_r in Hin. rewrite Forall_forall in HX. auto. }
  rewrite length_vadd, length_vscale, Hx.
  assert ((length (vsum (map (fun h => hterm h (causal a) X (i, x)) (heads a))) <= d)%nat); [|lia].
  apply length_vsum. apply Forall_forall. intros v Hv. apply in_map_iff in Hv as [h [<- Hh]].
  unfold hterm. cbn [fst snd]. rewrite Forall_forall in HV. apply fapply_length; auto.
  apply attend_length. unfold keys. destruct (causal a); auto. now apply Forall_firstn.
Qed.
